import { randomUUID } from 'node:crypto';
import express from 'express';
import type { NextFunction, Request, Response, Express } from 'express';
import { AppError, CATALOG, HEADERS, isAppError, renderAsyncApi, validateRequest } from '@nap/contracts';
import type { Caller, OperationDef } from '@nap/contracts';
import type { Bus, BusClient } from '@nap/bus';
import { SpanKind, extractTraceContext, withSpan } from '@nap/telemetry';
import type { Logger, PlatformMetrics } from '@nap/telemetry';
import { Authenticator, readCredentials } from './auth/authenticator';
import { buildOpenApi } from './openapi';
import { mountDocs } from './docs';
import { RouteTable } from './routes';
import { createEventStreams } from './sse';

export interface GatewayOptions {
  bus: Bus;
  client: BusClient;
  logger: Logger;
  metrics: PlatformMetrics;
  /** Largest accepted body, in bytes or a size string (`1mb`). */
  bodyLimit?: string | number;
  /** Services that must answer discovery for `/health/ready`. */
  requiredServices?: readonly string[];
  authenticator?: Authenticator;
  /** Token lifetime of login cookies, seconds (admin service decides the token itself). */
  cookieMaxAgeSeconds?: number;
  /** Mark the `token` cookie Secure (behind TLS). */
  secureCookies?: boolean;
}

export interface Gateway {
  app: Express;
  authenticator: Authenticator;
  start(): Promise<void>;
  stop(): Promise<void>;
}

type Locals = { requestId: string; caller?: Caller; op?: OperationDef };

const JSON_TYPES = ['application/json', 'application/*+json'];
const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * The HTTP gateway: every catalog route, authenticated, role-checked and validated here, then sent
 * as one bus request to the owning service. No business logic lives here.
 */
export function createGateway(options: GatewayOptions): Gateway {
  const { bus, client, logger, metrics } = options;
  const authenticator = options.authenticator ?? new Authenticator({ bus, client, logger });
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.set('etag', false);

  const jsonParser = express.json({ limit: options.bodyLimit ?? '1mb', type: JSON_TYPES, strict: false });
  const formParser = express.urlencoded({ limit: options.bodyLimit ?? '1mb', extended: false, type: FORM_TYPE });

  app.use((req: Request, res: Response, next: NextFunction) => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && /^[\w.-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    (res.locals as Locals).requestId = requestId;
    res.setHeader('x-request-id', requestId);
    next();
  });

  // catalog operations first: they are nearly all the traffic
  const routes = new RouteTable(CATALOG);
  const streams = createEventStreams({ bus, client, authenticator, logger });
  app.use((req: Request, res: Response, next: NextFunction) => {
    const found = routes.find(req.method, req.path);
    if (!found) {
      next();
      return;
    }
    (res.locals as Locals).op = found.op;
    // server-sent events are streamed by the gateway itself (sse.ts)
    const stream = found.op.response.contentType === 'text/event-stream' ? streams[found.op.id] : undefined;
    if (stream) {
      stream(found.op, found.params, req, res, (res.locals as Locals).requestId).catch(next);
      return;
    }
    const bodyParser = (found.op.accepts ?? JSON_TYPES).includes(FORM_TYPE) ? formParser : jsonParser;
    handleOperation(found.op, found.params, req, res, bodyParser).catch(next);
  });

  app.get('/health/live', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/health/ready', async (_req, res) => {
    const required = options.requiredServices ?? [];
    let found: string[] = [];
    if (bus.isConnected()) {
      try {
        found = [...new Set((await bus.discover(undefined, 500)).map((s) => s.name))];
      } catch {
        found = [];
      }
    }
    const missing = required.filter((name) => !found.includes(name));
    const ready = bus.isConnected() && missing.length === 0;
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', bus: bus.isConnected() ? 'connected' : 'disconnected', services: found.sort(), missing });
  });

  const openapi = buildOpenApi();
  app.get('/openapi.json', (_req, res) => {
    res.json(openapi);
  });
  const asyncapi = renderAsyncApi();
  app.get('/asyncapi.json', (_req, res) => {
    res.json(asyncapi);
  });
  mountDocs(app);

  async function handleOperation(op: OperationDef, params: Record<string, string>, req: Request, res: Response, bodyParser: express.RequestHandler): Promise<void> {
    const started = process.hrtime.bigint();
    const locals = res.locals as Locals;
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const labels = { operation: op.id, method: req.method, status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, seconds);
      // one line per request at debug level (NAP_LOG_LEVEL=debug); never the query string, which may hold ?token=
      if (logger.isLevelEnabled('debug')) {
        logger.debug({ requestId: locals.requestId, operation: op.id, method: req.method, route: op.http?.path, status: res.statusCode, ms: Math.round(seconds * 1e4) / 10, user: locals.caller?.username }, 'request');
      }
    });
    await withSpan(`${req.method} ${op.http?.path ?? op.id}`, SpanKind.SERVER, { 'http.request.method': req.method, 'http.route': op.http?.path ?? '', 'nap.request_id': locals.requestId }, async (span) => {
      // who is calling and may they? decided before the body is read or validated
      let caller: Caller | undefined;
      if (op.auth !== 'public') {
        const credentials = readCredentials(req.headers, (req.query as Record<string, unknown>).token);
        if (!credentials) throw new AppError('UNAUTHENTICATED', 'Credentials are required: a Bearer token, the token cookie, ?token= or Basic');
        caller = await authenticator.authenticate(credentials);
        locals.caller = caller;
        if (!op.roles.some((role) => caller?.roles.includes(role))) {
          throw new AppError('FORBIDDEN', `${req.method} ${op.http?.path} needs one of the roles ${op.roles.join(', ')}; the caller has ${caller.roles.length ? caller.roles.join(', ') : 'none'}`);
        }
      }
      await readBody(op, req, res, bodyParser);
      const query = { ...(req.query as Record<string, unknown>) };
      if (op.auth !== 'public') delete query.token;
      const parts = { params, query, body: req.body as unknown };
      const problems = validateRequest(op, parts);
      if (problems.length > 0) throw new AppError('VALIDATION_FAILED', problems.map((p) => p.message).join('; '), { details: problems });
      const result = await client.callRaw(op, parts, {
        caller: caller ?? { id: 'anonymous', username: 'anonymous', roles: [], groups: [] },
        requestId: locals.requestId,
        validated: true,
      });
      span.setAttribute('http.response.status_code', result.status);
      afterOperation(op, result, res);
      const contentType = result.headers[HEADERS.contentType];
      res.status(result.status);
      if (result.status === 204 || result.data.length === 0) {
        res.end();
        return;
      }
      res.setHeader('content-type', contentType ?? 'application/json; charset=utf-8');
      const disposition = result.headers[HEADERS.contentDisposition];
      if (disposition !== undefined) res.setHeader('content-disposition', disposition);
      res.end(Buffer.from(result.data.buffer, result.data.byteOffset, result.data.byteLength));
    }, extractTraceContext(req.headers as Record<string, string>));
  }

  /** Cookies are HTTP's business, so login and logout get theirs here. */
  function afterOperation(op: OperationDef, result: { data: Uint8Array }, res: Response): void {
    if (op.id === 'admin.login') {
      // admin.login answers the bare token as text/plain
      const token = Buffer.from(result.data).toString('utf8').trim();
      res.cookie('token', token, { httpOnly: true, sameSite: 'lax', secure: options.secureCookies ?? false, path: '/', maxAge: (options.cookieMaxAgeSeconds ?? 43_200) * 1000 });
    } else if (op.id === 'admin.logout') {
      res.clearCookie('token', { path: '/' });
    }
  }

  async function readBody(op: OperationDef, req: Request, res: Response, parser: express.RequestHandler): Promise<void> {
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (!hasBody) {
      req.body = undefined;
      return;
    }
    const accepted = op.accepts ?? JSON_TYPES;
    if (!req.is(accepted as string[])) {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', `${req.method} ${op.http?.path} accepts ${accepted.join(' or ')}, not ${req.headers['content-type'] ?? 'a body without a content type'}`);
    }
    await new Promise<void>((resolve, reject) => {
      parser(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
    });
  }

  app.use((req: Request, res: Response) => {
    const allowed = routes.allowed(req.path);
    if (allowed.length > 0) {
      res.setHeader('allow', allowed.join(', '));
      sendError(res, new AppError('METHOD_NOT_ALLOWED', `${req.path} answers ${allowed.join(', ')}, not ${req.method}`));
      return;
    }
    sendError(res, new AppError('NOT_FOUND', `No route ${req.method} ${req.path}`));
  });

  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    sendError(res, toHttpError(err));
  });

  function toHttpError(err: unknown): AppError {
    if (isAppError(err)) return err;
    const e = err as { type?: string; status?: number; message?: string };
    if (e.type === 'entity.too.large') return new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${String(options.bodyLimit ?? '1mb')}`);
    if (e.type === 'entity.parse.failed') return new AppError('BAD_REQUEST', `The request body is not valid JSON: ${e.message ?? ''}`.trim());
    if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') return new AppError('UNSUPPORTED_MEDIA_TYPE', e.message ?? 'Unsupported body encoding');
    if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) return new AppError('BAD_REQUEST', e.message ?? 'Bad request');
    logger.error({ err }, 'Unexpected gateway error');
    return new AppError('INTERNAL', 'Internal error in the gateway');
  }

  function sendError(res: Response, err: AppError): void {
    const locals = res.locals as Locals;
    if (err.status >= 500) logger.warn({ requestId: locals.requestId, code: err.code, operation: locals.op?.id }, err.message);
    if (res.headersSent) {
      res.end();
      return;
    }
    if (err.status === 401) res.setHeader('www-authenticate', 'Bearer realm="nap", Basic realm="nap"');
    res.status(err.status).json(err.toBody(locals.requestId));
  }

  return {
    app,
    authenticator,
    start: () => authenticator.start(),
    stop: () => authenticator.stop(),
  };
}
