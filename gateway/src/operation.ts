import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '@nap/contracts';
import type { Bus, BusClient } from '@nap/bus';
import { SpanKind, extractTraceContext, withSpan } from '@nap/telemetry';
import type { Logger, PlatformMetrics } from '@nap/telemetry';
import type { AuditTrail, AuditedRequest } from './audit';
import type { Authenticator } from './auth/authenticator';
import { authenticate } from './authenticate';
import { authorize } from './authorize';
import type { BodyReader } from './body';
import type { BrowserSafety } from './browser-safety';
import type { ClientAddress } from './client-address';
import type { ErrorAnswers } from './errors';
import { continuationOf, writeContinuedReply } from './continued-reply';
import type { OperationExchange, RequestLocals } from './exchange';
import { forward, writeReply } from './forward';
import { withOAuthClientCredentials } from './oauth-client';
import { observe } from './observe';
import { requestIdOf } from './request-id';
import { lookUpRoute } from './route-lookup';
import type { RouteTable } from './routes';
import type { SecurityHeaders } from './security-headers';
import type { SessionCookies } from './session-cookie';
import type { EventStreams } from './sse';
import type { UnavailableServices } from './unavailable';
import { validate } from './validate';

/** What the operation path is made of; each step is a file of its own. */
export interface OperationPathParts {
  bus: Bus;
  client: BusClient;
  logger: Logger;
  metrics: PlatformMetrics;
  authenticator: Authenticator;
  routes: RouteTable;
  streams: EventStreams;
  readBody: BodyReader;
  /** The cookies of login, logout and browser sign-in, and the redirects of browser sign-in. */
  sessionCookies: SessionCookies;
  unavailable: UnavailableServices;
  errors: ErrorAnswers;
  /** Headers every answer carries (helmet), set before any step may answer. */
  securityHeaders: SecurityHeaders;
  /** The cookie-session rules: a change sent with the cookie alone must come from the platform's own pages. */
  browser: BrowserSafety;
  /** Records changes and refusals before their answer leaves. */
  audit: AuditTrail;
  /** The address a request came from: passed on to the owning service (logins are throttled per address). */
  clientAddress: ClientAddress;
}

/** Serves a catalog operation when the path is one; false to let express answer. */
export type OperationPath = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * The path of a catalog operation, on Node's request and response (express's per-request layers
 * cost more than the rest of the gateway's path): security headers, request id, route lookup, the
 * cross-site rule of cookie sessions, then either one of the streams the gateway answers itself
 * (sse.ts, audit-export.ts) or the pipeline of {@link handleOperation}. Whatever a step throws is
 * recorded in the audit trail when it must be (a change, a refusal), then answered as the
 * platform's error body.
 */
export function createOperationPath(parts: OperationPathParts): OperationPath {
  const { routes, streams, errors, browser, audit } = parts;
  return (req, res) => {
    parts.securityHeaders(req, res);
    const locals: RequestLocals = { requestId: requestIdOf(req, res) };
    let route: ReturnType<typeof lookUpRoute>;
    try {
      route = lookUpRoute(routes, req);
    } catch (err) {
      errors.send(res, locals, errors.toHttpError(err));
      return true;
    }
    if (!route) return false;
    const { op, params, query } = route;
    locals.op = op;
    const method = req.method ?? 'GET';
    // every answer of an operation counts: event streams and exports when they end, refusals before any work
    observe(parts.metrics, parts.logger, { res, op, method, locals });
    const audited: AuditedRequest = { req, op, method, params, locals };
    const fail = async (err: unknown): Promise<void> => {
      const error = errors.toHttpError(err);
      if (!res.headersSent) await audit.recordFailure(audited, error);
      // a person whose browser sign-in failed goes back to the login page, which says why
      if (!res.headersSent && parts.sessionCookies.answerFailure(op, error, req, res, locals.requestId)) {
        errors.note(locals, error);
        parts.logger.info(
          { requestId: locals.requestId, operation: op.id, code: error.code, reason: error.message },
          'A browser sign-in failed; the person was sent back to the login page',
        );
        return;
      }
      errors.send(res, locals, error);
    };
    const crossSite = browser.refuseCrossSite(req, op, query.token);
    if (crossSite) {
      // the rule applies to requests that carry the cookie alone
      locals.credentials = { via: 'cookie' };
      void fail(crossSite);
      return true;
    }
    const stream = streams.get(op.id);
    const work = stream
      ? stream(op, params, req, res, query, locals.requestId, locals)
      : handleOperation(parts, { req, res, op, method, params, query, locals }, audited);
    work.catch(fail);
    return true;
  };
}

/**
 * One catalog operation, step by step in a SERVER span: answered 503 at once while the bus is
 * disconnected, then authenticate and authorize (before the body is read or validated), read the
 * body, validate, forward as one bus request, record it in the audit trail when it changed
 * something, set the session cookie of login and logout, and write the service's reply back untouched
 * (browser sign-in: the redirects the cookie step answers).
 */
async function handleOperation(parts: OperationPathParts, exchange: OperationExchange, audited: AuditedRequest): Promise<void> {
  const { bus, client, authenticator, readBody, sessionCookies, unavailable, clientAddress } = parts;
  const { req, res, op, method, params, query, locals } = exchange;
  await withSpan(
    `${method} ${op.http?.path ?? op.id}`,
    SpanKind.SERVER,
    { 'http.request.method': method, 'http.route': op.http?.path ?? '', 'nap.request_id': locals.requestId },
    // `trace` is handed on explicitly: the gateway process runs without a context manager (main.ts)
    async (span, trace) => {
      // the bus knows it is disconnected (as /health/ready does): answer 503 at once rather than time out
      if (!bus.isConnected())
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          `The message bus is disconnected; ${method} ${op.http?.path} cannot reach the ${op.service} service until it reconnects`,
        );
      if (op.auth !== 'public') {
        const caller = await authenticate(authenticator, req, query, clientAddress, locals, trace);
        authorize(op, caller, method);
        delete query.token;
      }
      const body = withOAuthClientCredentials(op, req, await readBody(op, req, res));
      locals.body = body;
      const request = { params, query, body };
      validate(op, request);
      locals.validated = true;
      sessionCookies.checkBrowserBinding(op, req, query, body);
      const result = await forward(client, unavailable, op, req, request, locals.caller, locals.requestId, clientAddress(req), trace);
      span.setAttribute('http.response.status_code', result.status);
      // the record of a change is durable before its answer leaves (AUDIT_UNAVAILABLE otherwise)
      await parts.audit.recordSuccess(audited, result);
      if (sessionCookies.answer(op, result, res)) return;
      const next = continuationOf(result);
      if (next === undefined) writeReply(res, result);
      else
        await writeContinuedReply(
          res,
          result,
          next,
          (more) =>
            forward(
              client,
              unavailable,
              op,
              req,
              { ...request, query: { ...query, ...more } },
              locals.caller,
              locals.requestId,
              clientAddress(req),
              trace,
            ),
          parts.logger,
        );
    },
    extractTraceContext(req.headers as Record<string, string>),
  );
}
