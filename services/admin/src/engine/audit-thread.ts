import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { AppError } from '@nap/contracts';
import type { QueuedEntry } from '@nap/bus';
import type { Logger } from '@nap/telemetry';
import { AUDIT_RECORDS_METHODS } from '../store/audit-records';
import type { AuditRecords } from '../store/audit-records';
import type { AppendedRecord, ChainAppend } from './audit-chain-writer';
import type { AuditThreadData, AuditThreadMessage, AuditThreadRequest, ThreadError } from './audit-thread-protocol';

/** The audit trail's chain in a thread of its own: its writes and reads, and its end. */
export interface AuditThread {
  /** Appends batches of the audit queue to the chain (in the thread: decoding, hashing, the store's write). */
  writer: ChainAppend;
  /** The chain's records, read and written in the thread. */
  records: AuditRecords;
  /** Ends the thread once what it was asked is answered; later calls fail. */
  close(): Promise<void>;
}

type Pending = { resolve(value: unknown): void; reject(err: unknown): void };
type Running = { worker: Worker; ready: Promise<void> };
type Distribute<T> = T extends unknown ? Omit<T, 'id'> : never;

/**
 * Starts the audit thread: a worker thread that opens the admin service's store too (the embedded
 * store's LMDB environment is shared by the threads of a process) and does the chain's work there,
 * the hashing and indexed inserts that would otherwise take the event loop from every request. The
 * standalone platform runs it: its one process serves the gateway, the services and the chain, and
 * the chain's work for each change cost the process nearly as much as the change.
 *
 * A thread that dies (a bug) fails what it was asked with `SERVICE_UNAVAILABLE` and is started
 * again at the next call.
 */
export async function startAuditThread(
  data: AuditThreadData,
  log: Logger,
  /** Told of each thread started (the first, and one started again after a thread ended). */
  onStart?: (worker: Worker) => void,
): Promise<AuditThread> {
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let running: Running | undefined;
  let closed = false;

  function stopped(reason: string): void {
    running = undefined;
    const failure = new AppError('SERVICE_UNAVAILABLE', `The audit thread stopped: ${reason}`);
    for (const waiter of pending.values()) waiter.reject(failure);
    pending.clear();
  }

  function start(): Running {
    const worker = new Worker(threadModule(), { workerData: data, name: 'nap-audit' });
    onStart?.(worker);
    const ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (message: AuditThreadMessage) => {
        switch (message.kind) {
          case 'ready':
            resolve();
            return;
          case 'failed':
            reject(errorOf(message.error));
            return;
          case 'log':
            log[message.level](message.details, message.message);
            return;
          case 'answer': {
            const waiter = pending.get(message.id);
            if (waiter === undefined) return;
            pending.delete(message.id);
            if (message.ok) waiter.resolve(message.value);
            else waiter.reject(errorOf(message.error));
          }
        }
      });
      worker.on('error', (err) => {
        log.error({ err }, 'The audit thread failed; it starts again at the next call');
        reject(err);
      });
      worker.on('exit', (code) => {
        if (running?.worker === worker) stopped(`it ended (exit code ${code})`);
        reject(new AppError('SERVICE_UNAVAILABLE', `The audit thread ended (exit code ${code}) before it was ready`));
      });
    });
    return { worker, ready };
  }

  async function ask(request: Distribute<AuditThreadRequest>): Promise<unknown> {
    if (closed) throw new AppError('SERVICE_UNAVAILABLE', 'The audit thread is closed');
    running ??= start();
    const { worker, ready } = running;
    await ready;
    const id = ++nextId;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...request, id });
    });
  }

  const first = (running = start());
  try {
    await first.ready;
  } catch (err) {
    running = undefined;
    await first.worker.terminate();
    throw err;
  }

  const records = Object.fromEntries(
    AUDIT_RECORDS_METHODS.map((method) => [method, (...args: unknown[]) => ask({ kind: 'call', method, args })]),
  ) as unknown as AuditRecords;

  return {
    writer: { append: (batch: QueuedEntry[]) => ask({ kind: 'append', batch }) as Promise<AppendedRecord[]> },
    records,
    async close() {
      if (closed) return;
      const current = running;
      if (current !== undefined)
        await ask({ kind: 'close' }).catch((err: unknown) => log.warn({ err }, 'The audit thread did not close its store'));
      closed = true;
      running = undefined;
      await current?.worker.terminate();
      // what the thread had not answered when it ended (a read still under way) fails rather than waits for ever
      stopped('it was closed');
    },
  };
}

/**
 * The thread's module: compiled beside this one. Run from sources (jest compiles them in its own
 * process, not in a worker), the thread runs their build: `npm run build` first, as for the tests
 * that start the platform's processes.
 */
function threadModule(): string {
  if (!__filename.endsWith('.ts')) return path.join(__dirname, 'audit-thread-main.js');
  const built = path.resolve(__dirname, '../../dist/engine/audit-thread-main.js');
  if (!existsSync(built)) throw new Error(`The audit thread runs compiled code and ${built} is missing: build first (npm run build)`);
  return built;
}

function errorOf(error: ThreadError): Error {
  if (error.code === undefined) return new Error(error.message);
  return new AppError(error.code, error.message, {
    ...(error.status !== undefined ? { status: error.status } : {}),
    ...(error.details !== undefined ? { details: error.details } : {}),
  });
}
