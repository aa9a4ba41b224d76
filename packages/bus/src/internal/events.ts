import { ALL_EVENTS, EVENT_PREFIX } from '@nap/contracts';
import type { EventConsumerOptions, EventDelivery } from '../types';
import { isSubsetPattern, isValidPattern, isValidSubject, subjectMatcher } from '../subject-match';
import { invalidArgument } from './errors';
import { assertName } from './services';

/** Subjects the event stream keeps. */
export const EVENT_SUBJECTS = ALL_EVENTS;

/** Limits of the event stream; the oldest events go first when one is reached. */
export interface EventStreamLimits {
  /** Events older than this are dropped. Defaults to 7 days. */
  maxAgeMs?: number;
  /** The stream keeps at most this many bytes (JetStream's accounting). Defaults to 1 GiB. */
  maxBytes?: number;
}

/** How event consumers of a bus handle failures. */
export interface EventConsumerSettings {
  /** Delay before an event whose handler threw is delivered again. Defaults to 1000 ms. */
  redeliveryDelayMs?: number;
  /** Deliveries of one event (first plus redeliveries) before it is given up. Defaults to 10. */
  maxDeliver?: number;
  /**
   * NatsBus only: how long JetStream waits for a durable consumer's ack before delivering the event
   * again (the clock restarts when the handler starts). Defaults to 30 s.
   */
  ackWaitMs?: number;
}

export const DEFAULT_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
export const DEFAULT_MAX_BYTES = 1024 * 1024 * 1024;
export const DEFAULT_REDELIVERY_DELAY_MS = 1000;
export const DEFAULT_MAX_DELIVER = 10;
export const DEFAULT_ACK_WAIT_MS = 30_000;

/** Settings with defaults applied. */
export type ResolvedConsumerSettings = Required<EventConsumerSettings>;

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw invalidArgument(`${name} must be a positive number, got ${value}`);
  return value;
}

export function resolveStreamLimits(limits: EventStreamLimits | undefined): Required<EventStreamLimits> {
  return {
    maxAgeMs: positive('maxAgeMs', limits?.maxAgeMs, DEFAULT_MAX_AGE_MS),
    maxBytes: positive('maxBytes', limits?.maxBytes, DEFAULT_MAX_BYTES),
  };
}

export function resolveConsumerSettings(settings: EventConsumerSettings | undefined): ResolvedConsumerSettings {
  return {
    redeliveryDelayMs: positive('redeliveryDelayMs', settings?.redeliveryDelayMs, DEFAULT_REDELIVERY_DELAY_MS),
    maxDeliver: Math.floor(positive('maxDeliver', settings?.maxDeliver, DEFAULT_MAX_DELIVER)),
    ackWaitMs: positive('ackWaitMs', settings?.ackWaitMs, DEFAULT_ACK_WAIT_MS),
  };
}

/** Refuses an event subject outside the stream, as JetStream would (it has no stream to store it). */
export function assertEventSubject(subject: string): void {
  // a concrete subject is within the stream's subjects when it matches them
  if (!isValidSubject(subject) || !subjectMatcher(EVENT_SUBJECTS)(subject)) {
    throw invalidArgument(`Event subject "${subject}" is not valid: events go to concrete subjects under ${EVENT_PREFIX}.`);
  }
}

/** Refuses a consumer filter that is not within the stream subjects, as JetStream would. */
export function assertEventFilter(filter: string): void {
  if (!isValidPattern(filter) || !isSubsetPattern(filter, EVENT_SUBJECTS)) {
    throw invalidArgument(`Event filter "${filter}" is not valid: it must match subjects under ${EVENT_SUBJECTS} only`);
  }
}

/** Where a new consumer starts, checked. */
export type CheckedDelivery = { kind: 'all' } | { kind: 'new' } | { kind: 'startSeq'; seq: number } | { kind: 'startTime'; timeMs: number };

export function checkConsumerOptions(options: EventConsumerOptions): CheckedDelivery {
  if (options.durableName !== undefined) assertName('Durable consumer', options.durableName);
  return checkDelivery(options.deliver);
}

function checkDelivery(deliver: EventDelivery): CheckedDelivery {
  if (deliver === 'all') return { kind: 'all' };
  if (deliver === 'new') return { kind: 'new' };
  if (typeof deliver === 'object' && deliver !== null) {
    if ('startSeq' in deliver) {
      if (!Number.isInteger(deliver.startSeq) || deliver.startSeq < 1)
        throw invalidArgument(`startSeq must be an integer >= 1, got ${deliver.startSeq}`);
      return { kind: 'startSeq', seq: deliver.startSeq };
    }
    if ('startTimeMs' in deliver) {
      if (!Number.isFinite(deliver.startTimeMs) || deliver.startTimeMs < 0)
        throw invalidArgument(`startTimeMs must be epoch ms, got ${deliver.startTimeMs}`);
      return { kind: 'startTime', timeMs: deliver.startTimeMs };
    }
  }
  throw invalidArgument(`Event delivery ${JSON.stringify(deliver)} is not valid: use 'all', 'new', { startSeq } or { startTimeMs }`);
}
