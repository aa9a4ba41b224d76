import type { QueuedEntry } from '@nap/bus';
import type { StoreConfig } from '@nap/store';
import type { AUDIT_RECORDS_METHODS } from '../store/audit-records';

/** What the audit thread is started with (`workerData`). */
export interface AuditThreadData {
  /** The admin service's store, which the thread opens too (the embedded one shares its LMDB environment). */
  store: StoreConfig;
}

/** What the service asks the audit thread. */
export type AuditThreadRequest =
  | { id: number; kind: 'append'; batch: QueuedEntry[] }
  | { id: number; kind: 'call'; method: (typeof AUDIT_RECORDS_METHODS)[number]; args: unknown[] }
  | { id: number; kind: 'close' };

/** An error as it crosses to the service: an AppError keeps its code, status and details. */
export interface ThreadError {
  message: string;
  code?: string;
  status?: number;
  details?: unknown;
}

/** What the audit thread tells the service. */
export type AuditThreadMessage =
  | { kind: 'ready' }
  | { kind: 'failed'; error: ThreadError }
  | { kind: 'answer'; id: number; ok: true; value: unknown }
  | { kind: 'answer'; id: number; ok: false; error: ThreadError }
  | { kind: 'log'; level: 'error' | 'warn'; details: Record<string, unknown>; message: string };
