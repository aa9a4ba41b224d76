import type { ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { AppError, isAppError } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import { DEFAULT_BODY_LIMIT } from './body';
import type { RequestLocals } from './exchange';
import type { RouteTable } from './routes';

/** How the gateway answers a failure: the platform's JSON error body, whoever threw. */
export interface ErrorAnswers {
  /** An `AppError` as it is; body-parser's errors as 400/413/415; anything else a logged 500. */
  toHttpError(err: unknown): AppError;
  /** Logs a failure the platform should hear of (5xx), however it is answered. */
  note(locals: RequestLocals, err: AppError): void;
  /** Writes the error body (or ends a response already started); 5xx answers are logged. */
  send(res: ServerResponse, locals: RequestLocals, err: AppError): void;
}

export function createErrorAnswers(logger: Logger, bodyLimit: string | number | undefined): ErrorAnswers {
  function toHttpError(err: unknown): AppError {
    if (isAppError(err)) return err;
    const e = err as { type?: string; status?: number; message?: string; limit?: unknown };
    if (e.type === 'entity.too.large') {
      // body-parser names the limit it applied: an operation that takes whole documents has a larger one
      const limit = typeof e.limit === 'number' ? `${e.limit} bytes` : String(bodyLimit ?? DEFAULT_BODY_LIMIT);
      return new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${limit} of this route`);
    }
    if (e.type === 'entity.parse.failed')
      return new AppError('BAD_REQUEST', `The request body is not valid JSON: ${e.message ?? ''}`.trim());
    if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported')
      return new AppError('UNSUPPORTED_MEDIA_TYPE', e.message ?? 'Unsupported body encoding');
    if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) return new AppError('BAD_REQUEST', e.message ?? 'Bad request');
    logger.error({ err }, 'Unexpected gateway error');
    return new AppError('INTERNAL', 'Internal error in the gateway');
  }

  function note(locals: RequestLocals, err: AppError): void {
    if (err.status >= 500) logger.warn({ requestId: locals.requestId, code: err.code, operation: locals.op?.id }, err.message);
  }

  function send(res: ServerResponse, locals: RequestLocals, err: AppError): void {
    note(locals, err);
    if (res.headersSent) {
      res.end();
      return;
    }
    if (err.status === 401) res.setHeader('www-authenticate', 'Bearer realm="nap", Basic realm="nap"');
    const retryAfter = retryAfterSecondsOf(err);
    if (retryAfter !== undefined) res.setHeader('retry-after', String(retryAfter));
    const body = JSON.stringify(err.toBody(locals.requestId));
    res.statusCode = err.status;
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.setHeader('content-length', Buffer.byteLength(body));
    res.end(body);
  }

  return { toHttpError, note, send };
}

/** The `Retry-After` of a 429 (`LOGIN_THROTTLED`): the seconds its details name. */
function retryAfterSecondsOf(err: AppError): number | undefined {
  if (err.status !== 429 || typeof err.details !== 'object' || err.details === null) return undefined;
  const seconds = (err.details as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  return typeof seconds === 'number' && Number.isInteger(seconds) && seconds > 0 ? seconds : undefined;
}

/** Express's last route: 405 with `Allow` for a known path of another method, 404 otherwise. */
export function answerUnrouted(
  routes: RouteTable,
  errors: ErrorAnswers,
  counted: (method: string, status: number) => void = () => undefined,
) {
  return (req: Request, res: Response): void => {
    const locals = res.locals as RequestLocals;
    const allowed = routes.allowed(req.path);
    if (allowed.length > 0) {
      res.setHeader('allow', allowed.join(', '));
      counted(req.method, 405);
      errors.send(res, locals, new AppError('METHOD_NOT_ALLOWED', `${req.path} answers ${allowed.join(', ')}, not ${req.method}`));
      return;
    }
    counted(req.method, 404);
    errors.send(res, locals, new AppError('NOT_FOUND', `No route ${req.method} ${req.path}`));
  };
}

/** Express's error handler: whatever a route threw, answered as the platform's error body. */
export function answerThrown(errors: ErrorAnswers) {
  return (err: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    errors.send(res, res.locals as RequestLocals, errors.toHttpError(err));
  };
}
