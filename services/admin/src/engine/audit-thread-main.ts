// The audit thread (a worker thread of the admin service, see audit-thread.ts): it opens the admin
// store and answers the service's appends to the chain and its reads of it.
import { parentPort, workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { isAppError } from '@nap/contracts';
import { createStore } from '@nap/store';
import type { Store } from '@nap/store';
import { errorMessage } from '@nap/util';
import { AUDIT_RECORDS_METHODS, AuditRepository } from '../store/audit-records';
import { AuditChainWriter } from './audit-chain-writer';
import type { AuditThreadData, AuditThreadMessage, AuditThreadRequest, ThreadError } from './audit-thread-protocol';

const METHODS: ReadonlySet<string> = new Set(AUDIT_RECORDS_METHODS);

function threadError(err: unknown): ThreadError {
  if (isAppError(err)) {
    const error: ThreadError = { message: err.message, code: err.code, status: err.status };
    if (err.details !== undefined) error.details = err.details;
    return error;
  }
  return { message: errorMessage(err) };
}

function serve(port: MessagePort, data: AuditThreadData): void {
  const send = (message: AuditThreadMessage) => port.postMessage(message);
  let store: Store;
  try {
    store = createStore(data.store);
  } catch (err) {
    send({ kind: 'failed', error: threadError(err) });
    return;
  }
  const records = new AuditRepository(store);
  const writer = new AuditChainWriter(records, {
    error: (details, message) => send({ kind: 'log', level: 'error', details, message }),
  });

  async function answer(request: AuditThreadRequest): Promise<unknown> {
    switch (request.kind) {
      case 'append':
        return writer.append(request.batch);
      case 'call': {
        if (!METHODS.has(request.method)) throw new Error(`The audit thread has no method "${String(request.method)}"`);
        const method = records[request.method] as (...args: unknown[]) => Promise<unknown>;
        return method.apply(records, request.args);
      }
      case 'close':
        port.off('message', onMessage);
        await store.close();
        return undefined;
    }
  }

  function onMessage(request: AuditThreadRequest): void {
    answer(request).then(
      (value) => send({ kind: 'answer', id: request.id, ok: true, value }),
      (err: unknown) => send({ kind: 'answer', id: request.id, ok: false, error: threadError(err) }),
    );
  }

  port.on('message', onMessage);
  send({ kind: 'ready' });
}

if (parentPort) serve(parentPort, workerData as AuditThreadData);
