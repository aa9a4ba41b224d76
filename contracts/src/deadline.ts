import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError } from './errors';

/**
 * The deadline of the request being handled, carried through async calls so that the stores can
 * bound every call by it (MongoDB `maxTimeMS`, a check in the embedded store) without each
 * repository taking it as an argument. `serve()` opens the scope around a handler and closes it when
 * the handler ends: work that outlives the request (a job's runner started by a start request) is no
 * longer bound by that request's deadline.
 *
 * The scope is an `AsyncLocalStorage`, which on Node 20 runs a hook on every promise the process
 * makes once it is used (about 5% of the workflow engine's CPU). `serve()` therefore opens it only
 * in a process where a store asked for it ({@link boundCallsByRequestDeadline}: the MongoDB store,
 * whose calls wait on a server that may hang). The embedded store's calls take microseconds and
 * never wait on another machine: it honours a scope that is open, and a process of embedded stores
 * runs without one (a handler's own waits are bounded by `ctx.deadline` and its calls to other
 * services by theirs).
 */
interface DeadlineScope {
  readonly deadline: number;
  open: boolean;
}

const scopes = new AsyncLocalStorage<DeadlineScope>();

let scopesWanted = false;

/** A store of this process bounds its calls by the deadline of the request in scope: `serve()` opens the scope from now on. */
export function boundCallsByRequestDeadline(): void {
  scopesWanted = true;
}

/**
 * Runs a request's handler `fn` within its `deadline` ({@link runWithDeadline}) when a store of the
 * process bounds its calls by it, else as it is (see the module's note).
 */
export function withinRequestDeadline<T>(deadline: number, fn: () => Promise<T>): Promise<T> {
  return scopesWanted ? runWithDeadline(deadline, fn) : fn();
}

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
