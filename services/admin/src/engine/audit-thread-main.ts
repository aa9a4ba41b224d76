// The audit thread (a worker thread of the admin service, see audit-thread.ts): it opens the admin
// store and answers the service's appends to the chain and its reads of it.
import { parentPort, workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import type { AuditEntry, auditEntrySchema, isValid } from '@nap/contracts';
// the modules it needs, not @nap/contracts' index: that loads every schema and TypeBox (~0.2 s of CPU)
import { AUDIT_ENTRY_SCHEMA_ID } from '@nap/contracts/dist/audit';
import { isAppError } from '@nap/contracts/dist/errors';
import { CONTRACTS_PRECOMPILED_DIR, precompiledValidatorById } from '@nap/contracts/dist/precompiled-validators';
import { createStore } from '@nap/store';
import type { Store } from '@nap/store';
import { errorMessage } from '@nap/util';
import { AUDIT_RECORDS_METHODS, AuditRepository } from '../store/audit-records';
import { AuditChainWriter } from './audit-chain-writer';
import type { AuditEntryCheck } from './audit-chain-writer';
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

/**
 * The build's validator of the audit entry's schema; without one (contracts built without its
 * validators), the schema compiled as the service would, loading the schemas.
 */
type Contracts = { auditEntrySchema: typeof auditEntrySchema; isValid: typeof isValid };

function auditEntryCheck(): AuditEntryCheck {
  const validate = precompiledValidatorById(CONTRACTS_PRECOMPILED_DIR, AUDIT_ENTRY_SCHEMA_ID);
  if (validate !== undefined) return (value): value is AuditEntry => validate(value) === true;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- only when the build left no validator
  const contracts = require('@nap/contracts') as Contracts;
  return (value): value is AuditEntry => contracts.isValid(contracts.auditEntrySchema, value);
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
  const writer = new AuditChainWriter(
    records,
    {
      error: (details, message) => send({ kind: 'log', level: 'error', details, message }),
    },
    auditEntryCheck(),
  );

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
