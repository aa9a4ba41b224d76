import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import bodyParser from 'body-parser';
import { serialize as serializeCookie } from 'cookie';
import express from 'express';
import qs from 'qs';
import typeis from 'type-is';
import type { NextFunction, Request, Response, Express } from 'express';
import {
  AppError,
  CATALOG,
  DEFAULT_MAX_JSON_DEPTH,
  DEFAULT_MAX_PARAM_LENGTH,
  HEADERS,
  isAppError,
  jsonTextExceedsDepth,
  jsonTooDeep,
  renderAsyncApi,
  validateRequest,
} from '@nap/contracts';
import type { Caller, OperationDef } from '@nap/contracts';
import { acceptsIdempotencyKey } from '@nap/bus';
import type { Bus, BusClient } from '@nap/bus';
import { SpanKind, extractTraceContext, withSpan } from '@nap/telemetry';
import type { Logger, PlatformMetrics } from '@nap/telemetry';
import { Authenticator, readCredentials } from './auth/authenticator';
import { buildOpenApi } from './openapi';
import { mountDocs } from './docs';
import { RouteTable } from './routes';
import { createEventStreams } from './sse';
import { UnavailableServices } from './unavailable';
import { createBrowserSafety } from './browser-safety';
import type { BrowserSafetyOptions } from './browser-safety';
import { mountConsole } from './console-files';
import { createSecurityHeaders } from './security-headers';

export interface GatewayOptions extends BrowserSafetyOptions {
  bus: Bus;
  client: BusClient;
  logger: Logger;
  metrics: PlatformMetrics;
  /** Largest accepted body, in bytes or a size string (`1mb`). */
  bodyLimit?: string | number;
  /** Deepest nesting of a JSON body (400 `JSON_TOO_DEEP` beyond); checked on the bytes before parsing. */
  maxJsonDepth?: number;
  /** Longest path parameter, in characters (400 `PARAMETER_TOO_LONG` beyond). */
  maxParamLength?: number;
  /** Services that must answer discovery for `/health/ready`. */
  requiredServices?: readonly string[];
  authenticator?: Authenticator;
  /** Token lifetime of login cookies, seconds (admin service decides the token itself). */
  cookieMaxAgeSeconds?: number;
  /** Mark the `token` cookie Secure (behind TLS) whatever the request; it is anyway when the request came over https. */
  secureCookies?: boolean;
  /** The built console served at `/console/` (`NAP_CONSOLE_DIR`); `console/dist` beside the gateway when unset. */
  consoleDir?: string;
}

export interface Gateway {
  /** The express app: health, OpenAPI, docs, 404/405, and every catalog route when mounted alone. */
  app: Express;
  /**
   * The request listener to serve: catalog operations are answered on Node's request and response
   * directly (no express layers per request), everything else goes to `app`.
   */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  authenticator: Authenticator;
  start(): Promise<void>;
  stop(): Promise<void>;
}

type Locals = { requestId: string; caller?: Caller; op?: OperationDef };

const JSON_TYPES = ['application/json', 'application/*+json'];
const FORM_TYPE = 'application/x-www-form-urlencoded';
type BodyParser = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/** The request id: the client's `x-request-id` when it is a sane token, a new UUID otherwise; echoed back. */
function requestIdOf(req: IncomingMessage, res: ServerResponse): string {
  const incoming = req.headers['x-request-id'];
  const requestId = typeof incoming === 'string' && /^[\w.-]{1,128}$/.test(incoming) ? incoming : randomUUID();
  res.setHeader('x-request-id', requestId);
  return requestId;
}

/**
 * The HTTP gateway: every catalog route, authenticated, role-checked and validated here, then sent
 * as one bus request to the owning service. No business logic lives here.
 */
export function createGateway(options: GatewayOptions): Gateway {
  const { bus, client, logger, metrics } = options;
  const authenticator = options.authenticator ?? new Authenticator({ bus, client, logger });
  const unavailable = new UnavailableServices(bus);
  const browser = createBrowserSafety(options);
  const securityHeaders = createSecurityHeaders(browser);
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.set('etag', false);

  const maxJsonDepth = options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  // the depth is checked on the raw bytes, before JSON.parse or anything after it walks the body
  const jsonParser: BodyParser = bodyParser.json({
    limit: options.bodyLimit ?? '1mb',
    type: JSON_TYPES,
    strict: false,
    verify: (_req, _res, buf) => {
      if (jsonTextExceedsDepth(buf, maxJsonDepth)) throw jsonTooDeep('The request body', maxJsonDepth);
    },
  });
  const formParser: BodyParser = bodyParser.urlencoded({ limit: options.bodyLimit ?? '1mb', extended: false, type: FORM_TYPE });

  app.use((req: Request, res: Response, next: NextFunction) => {
    (res.locals as Locals).requestId = requestIdOf(req, res);
    next();
  });

  // catalog operations: nearly all the traffic, answered without express (see `handler`)
  const routes = new RouteTable(CATALOG, { maxParamLength: options.maxParamLength ?? DEFAULT_MAX_PARAM_LENGTH });
  const streams = createEventStreams({ bus, client, authenticator, logger });

  /** Serves a catalog operation when the path is one; false to let express answer. */
  function serveOperation(req: IncomingMessage, res: ServerResponse): boolean {
    securityHeaders(req, res);
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const locals: Locals = { requestId: requestIdOf(req, res) };
    let found: ReturnType<RouteTable['find']>;
    try {
      found = routes.find(req.method ?? 'GET', path);
    } catch (err) {
      sendError(res, locals, toHttpError(err));
      return true;
    }
    if (!found) return false;
    locals.op = found.op;
    let query: Record<string, unknown>;
    try {
      query = q < 0 ? {} : (qs.parse(url.slice(q + 1), { allowPrototypes: true }) as Record<string, unknown>);
    } catch {
      sendError(res, locals, new AppError('BAD_REQUEST', 'The query string cannot be read'));
      return true;
    }
    const crossSite = browser.refuseCrossSite(req, found.op, query.token);
    if (crossSite) {
      sendError(res, locals, crossSite);
      return true;
    }
    const request: IncomingRequest = { req, res, op: found.op, params: found.params, query, locals };
    // server-sent events are streamed by the gateway itself (sse.ts)
    const stream = found.op.response.contentType === 'text/event-stream' ? streams[found.op.id] : undefined;
    const work = stream ? stream(found.op, found.params, req, res, query, locals.requestId) : handleOperation(request);
    work.catch((err: unknown) => sendError(res, locals, toHttpError(err)));
    return true;
  }

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    if (!serveOperation(req, res)) app(req, res);
  };

  // mounted alone (tests, embedding), the express app answers catalog routes the same way
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (!serveOperation(req, res)) next();
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
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : 'not ready',
      bus: bus.isConnected() ? 'connected' : 'disconnected',
      services: found.sort(),
      missing,
    });
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
  mountConsole(app, { ...(options.consoleDir !== undefined ? { dir: options.consoleDir } : {}), logger });

  interface IncomingRequest {
    req: IncomingMessage;
    res: ServerResponse;
    op: OperationDef;
    params: Record<string, string>;
    query: Record<string, unknown>;
    locals: Locals;
  }

  async function handleOperation({ req, res, op, params, query, locals }: IncomingRequest): Promise<void> {
    const started = process.hrtime.bigint();
    const method = req.method ?? 'GET';
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const labels = { operation: op.id, method, status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, seconds);
      // one line per request at debug level (NAP_LOG_LEVEL=debug); never the query string, which may hold ?token=
      if (logger.isLevelEnabled('debug')) {
        logger.debug(
          {
            requestId: locals.requestId,
            operation: op.id,
            method,
            route: op.http?.path,
            status: res.statusCode,
            ms: Math.round(seconds * 1e4) / 10,
            user: locals.caller?.username,
          },
          'request',
        );
      }
    });
    await withSpan(
      `${method} ${op.http?.path ?? op.id}`,
      SpanKind.SERVER,
      { 'http.request.method': method, 'http.route': op.http?.path ?? '', 'nap.request_id': locals.requestId },
      async (span) => {
        // the bus knows it is disconnected (as /health/ready does): answer 503 at once rather than time out
        if (!bus.isConnected())
          throw new AppError(
            'SERVICE_UNAVAILABLE',
            `The message bus is disconnected; ${method} ${op.http?.path} cannot reach the ${op.service} service until it reconnects`,
          );
        // who is calling and may they? decided before the body is read or validated
        let caller: Caller | undefined;
        if (op.auth !== 'public') {
          const credentials = readCredentials(req.headers, query.token);
          if (!credentials)
            throw new AppError('UNAUTHENTICATED', 'Credentials are required: a Bearer token, the token cookie, ?token= or Basic');
          caller = await authenticator.authenticate(credentials);
          locals.caller = caller;
          if (!op.roles.some((role) => caller?.roles.includes(role))) {
            throw new AppError(
              'FORBIDDEN',
              `${method} ${op.http?.path} needs one of the roles ${op.roles.join(', ')}; the caller has ${caller.roles.length ? caller.roles.join(', ') : 'none'}`,
            );
          }
          delete query.token;
        }
        const body = await readBody(op, req, res);
        const parts = { params, query, body };
        const problems = validateRequest(op, parts);
        if (problems.length > 0) throw new AppError('VALIDATION_FAILED', problems.map((p) => p.message).join('; '), { details: problems });
        const idempotencyKey = req.headers['idempotency-key'];
        const result = await client
          .callRaw(op, parts, {
            caller: caller ?? { id: 'anonymous', username: 'anonymous', roles: [], groups: [] },
            requestId: locals.requestId,
            validated: true,
            // checked and honoured by the owning service (serve), where the key is kept with what it created
            ...(typeof idempotencyKey === 'string' && acceptsIdempotencyKey(op) ? { idempotencyKey } : {}),
          })
          .catch(async (err: unknown) => {
            throw isAppError(err) && err.code === 'SERVICE_UNAVAILABLE' ? await unavailable.explain(op.service, err) : err;
          });
        span.setAttribute('http.response.status_code', result.status);
        afterOperation(op, result, res);
        const contentType = result.headers[HEADERS.contentType];
        res.statusCode = result.status;
        if (result.headers[HEADERS.idempotentReplay] !== undefined) res.setHeader('idempotent-replayed', 'true');
        if (result.status === 204 || result.data.length === 0) {
          res.end();
          return;
        }
        res.setHeader('content-type', contentType ?? 'application/json; charset=utf-8');
        const disposition = result.headers[HEADERS.contentDisposition];
        if (disposition !== undefined) res.setHeader('content-disposition', disposition);
        res.end(Buffer.from(result.data.buffer, result.data.byteOffset, result.data.byteLength));
      },
      extractTraceContext(req.headers as Record<string, string>),
    );
  }

  /** Cookies are HTTP's business, so login and logout get theirs here. */
  function afterOperation(op: OperationDef, result: { data: Uint8Array }, res: ServerResponse): void {
    if (op.id === 'admin.login') {
      // admin.login answers the bare token as text/plain
      const token = Buffer.from(result.data).toString('utf8').trim();
      res.appendHeader(
        'set-cookie',
        serializeCookie('token', token, {
          httpOnly: true,
          sameSite: 'strict',
          secure: (options.secureCookies ?? false) || browser.isSecure(res.req),
          path: '/',
          maxAge: options.cookieMaxAgeSeconds ?? 43_200,
        }),
      );
    } else if (op.id === 'admin.logout') {
      res.appendHeader(
        'set-cookie',
        serializeCookie('token', '', {
          httpOnly: true,
          sameSite: 'strict',
          secure: browser.isSecure(res.req),
          path: '/',
          expires: new Date(0),
        }),
      );
    }
  }

  async function readBody(op: OperationDef, req: IncomingMessage, res: ServerResponse): Promise<unknown> {
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (!hasBody) return undefined;
    const accepted = op.accepts ?? JSON_TYPES;
    if (!typeis(req, [...accepted])) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `${req.method} ${op.http?.path} accepts ${accepted.join(' or ')}, not ${req.headers['content-type'] ?? 'a body without a content type'}`,
      );
    }
    const parser = accepted.includes(FORM_TYPE) ? formParser : jsonParser;
    const target = req as IncomingMessage & { body?: unknown };
    await new Promise<void>((resolve, reject) => {
      parser(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
    });
    return target.body;
  }

  app.use((req: Request, res: Response) => {
    const allowed = routes.allowed(req.path);
    if (allowed.length > 0) {
      res.setHeader('allow', allowed.join(', '));
      sendError(
        res,
        res.locals as Locals,
        new AppError('METHOD_NOT_ALLOWED', `${req.path} answers ${allowed.join(', ')}, not ${req.method}`),
      );
      return;
    }
    sendError(res, res.locals as Locals, new AppError('NOT_FOUND', `No route ${req.method} ${req.path}`));
  });

  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    sendError(res, res.locals as Locals, toHttpError(err));
  });

  function toHttpError(err: unknown): AppError {
    if (isAppError(err)) return err;
    const e = err as { type?: string; status?: number; message?: string };
    if (e.type === 'entity.too.large')
      return new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${String(options.bodyLimit ?? '1mb')}`);
    if (e.type === 'entity.parse.failed')
      return new AppError('BAD_REQUEST', `The request body is not valid JSON: ${e.message ?? ''}`.trim());
    if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported')
      return new AppError('UNSUPPORTED_MEDIA_TYPE', e.message ?? 'Unsupported body encoding');
    if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) return new AppError('BAD_REQUEST', e.message ?? 'Bad request');
    logger.error({ err }, 'Unexpected gateway error');
    return new AppError('INTERNAL', 'Internal error in the gateway');
  }

  function sendError(res: ServerResponse, locals: Locals, err: AppError): void {
    if (err.status >= 500) logger.warn({ requestId: locals.requestId, code: err.code, operation: locals.op?.id }, err.message);
    if (res.headersSent) {
      res.end();
      return;
    }
    if (err.status === 401) res.setHeader('www-authenticate', 'Bearer realm="nap", Basic realm="nap"');
    const body = JSON.stringify(err.toBody(locals.requestId));
    res.statusCode = err.status;
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.setHeader('content-length', Buffer.byteLength(body));
    res.end(body);
  }

  return {
    app,
    handler,
    authenticator,
    start: () => authenticator.start(),
    stop: () => authenticator.stop(),
  };
}
