import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError } from './errors';

/**
 * The deadline of the request being handled, carried through async calls so that the stores can
 * bound every call by it (MongoDB `maxTimeMS`, a check in the embedded store) without each
 * repository taking it as an argument. `serve()` opens the scope around a handler and closes it when
 * the handler ends: work that outlives the request (a job's runner started by a start request) is no
 * longer bound by that request's deadline.
 */
interface DeadlineScope {
  readonly deadline: number;
  open: boolean;
}

const scopes = new AsyncLocalStorage<DeadlineScope>();

/** Runs `fn` with `deadline` (epoch ms) as the current request deadline until `fn` settles. */
export async function runWithDeadline<T>(deadline: number, fn: () => Promise<T>): Promise<T> {
  const scope: DeadlineScope = { deadline, open: true };
  return scopes.run(scope, async () => {
    try {
      return await fn();
    } finally {
      scope.open = false;
    }
  });
}

/** The current request's deadline (epoch ms), or `undefined` outside a request (background work). */
export function currentDeadline(): number | undefined {
  const scope = scopes.getStore();
  return scope?.open ? scope.deadline : undefined;
}

/** Milliseconds left before the current request's deadline (at least 1), or `undefined` outside a request. */
export function remainingMs(): number | undefined {
  const deadline = currentDeadline();
  return deadline === undefined ? undefined : Math.max(1, deadline - Date.now());
}

/** Throws 504 `TIMEOUT` naming `what` when the current request's deadline has passed. */
export function assertBeforeDeadline(what: string): void {
  const deadline = currentDeadline();
  if (deadline !== undefined && Date.now() >= deadline) {
    throw new AppError('TIMEOUT', `${what} was not started: the request's deadline passed ${Date.now() - deadline} ms ago`);
  }
}

/**
 * Runs `fn` outside any request's deadline: for work that a request starts but that is not the
 * request's (a job's runner, a subscriber woken by a request's event), so that its store calls are
 * not refused when that request's deadline passes.
 */
export function outsideRequest<T>(fn: () => T): T {
  return scopes.exit(fn);
}
