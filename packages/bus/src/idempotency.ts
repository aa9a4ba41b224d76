import { createHash } from 'node:crypto';
import { AppError } from '@nap/contracts';
import type { Caller, OperationDef } from '@nap/contracts';

/** How long an `Idempotency-Key` is remembered, ms (24 hours). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Longest accepted `Idempotency-Key`, characters. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** A success answer kept for replay. */
export interface StoredOutcome {
  status: number;
  /** The answer's bytes, base64. */
  data: string;
  contentType?: string;
  filename?: string;
}

/** What {@link IdempotencyRecords.begin} found for a key. */
export type IdempotencyBegin = { state: 'new' } | { state: 'done'; outcome: StoredOutcome } | { state: 'mismatch' } | { state: 'busy' };

/**
 * Where a service remembers its `Idempotency-Key`s: in its own store, beside what the requests
 * create, shared by its replicas. `@nap/runtime` implements it over a store collection.
 */
export interface IdempotencyRecords {
  /**
   * Claims `id` for a request with this fingerprint until `leaseUntil` (epoch ms), or tells what is
   * known of it: answered (`done`), claimed for another body (`mismatch`), claimed by a request
   * still running (`busy`). A claim whose lease lapsed (its request died) may be taken over.
   */
  begin(id: string, fingerprint: string, leaseUntil: number): Promise<IdempotencyBegin>;
  /** Keeps the success answer of `id` for replay until the key expires. */
  complete(id: string, outcome: StoredOutcome): Promise<void>;
  /** Lets go of a claim whose request failed, so that a retry runs again. */
  release(id: string): Promise<void>;
}

/** True when `op` honours an `Idempotency-Key`: every POST behind credentials (creates, starts, runs). */
export function acceptsIdempotencyKey(op: OperationDef): boolean {
  return op.http?.method === 'POST' && op.auth !== 'public';
}

/** Checks a client's key: 1–255 visible ASCII characters; 400 otherwise. */
export function checkIdempotencyKey(key: string): string {
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new AppError(
      'BAD_REQUEST',
      `The Idempotency-Key header must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters (a UUID is a good choice)`,
    );
  }
  return key;
}

/** The record id of a key: scoped to the operation and the caller, so two callers' keys never meet. */
export function idempotencyRecordId(op: OperationDef, caller: Caller, key: string): string {
  return createHash('sha256').update(`${op.id}\n${caller.id}\n${key}`).digest('base64url');
}

/** A digest of the request's parts, independent of member order. */
export function requestFingerprint(parts: { params: unknown; query: unknown; body: unknown }): string {
  return createHash('sha256').update(canonicalJson(parts)).digest('base64url');
}

function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
}
