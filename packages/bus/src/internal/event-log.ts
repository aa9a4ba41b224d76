import type { BusHeaders } from '../types';
import { subjectMatcher, type SubjectMatcher } from '../subject-match';

/** One event as the in-memory stream keeps it. */
export interface StoredEvent {
  seq: number;
  subject: string;
  data: Uint8Array;
  headers: BusHeaders;
  timestamp: number;
  /** Bytes counted against `maxBytes`, as JetStream's file store counts a message. */
  size: number;
}

/**
 * Size of a message the way JetStream's file store accounts it: a 22-byte record header, the
 * subject, the encoded NATS headers, the payload and an 8-byte checksum.
 */
export function storedSize(subject: string, headers: BusHeaders, data: Uint8Array): number {
  let headerBytes = 0;
  for (const name of Object.keys(headers)) headerBytes += Buffer.byteLength(name) + 2 + Buffer.byteLength(headers[name] as string) + 2;
  if (headerBytes > 0) headerBytes += 'NATS/1.0\r\n'.length + 2;
  return 22 + Buffer.byteLength(subject) + headerBytes + data.length + 8;
}

/** Subjects whose listeners {@link EventLog} remembers at most. */
const REMEMBERED_SUBJECTS = 1_024;

/**
 * The in-memory counterpart of the JetStream stream `NAP_EVENTS` with limits retention and
 * discard-old: increasing sequences (from 1, or from where an earlier life of the stream left off), events older than `maxAgeMs` expire, and the oldest go
 * when the bytes exceed `maxBytes`. Expiry is applied whenever the log is read or written, which a
 * reader cannot tell from JetStream's periodic expiry.
 */
export class EventLog {
  /** Kept events from `head` on; the slots before it are emptied as events go, and reclaimed in bulk. */
  private entries: (StoredEvent | undefined)[] = [];
  private head = 0;
  private lastSeq = 0;
  private bytes = 0;
  /** Who hears of appends, each with the filter of the subjects it is told of (all when undefined). */
  private readonly listeners = new Map<() => void, SubjectMatcher | undefined>();
  /**
   * The listeners each subject appended lately goes to, made when the listeners last changed: a
   * job's events share a few subjects, and each was matched against every filter (bounded).
   */
  private readonly hearers = new Map<string, (() => void)[]>();

  /**
   * `firstSeq` is the sequence of the first event to be stored (1 for a stream new to the world;
   * higher for one that follows an earlier life of the stream, so that its sequences keep rising).
   */
  constructor(
    private readonly maxAgeMs: number,
    private readonly maxBytes: number,
    private readonly now: () => number = Date.now,
    firstSeq = 1,
  ) {
    this.lastSeq = firstSeq - 1;
  }

  /** Sequence of the last event ever stored (0 when none). */
  get lastSequence(): number {
    return this.lastSeq;
  }

  /** Sequence of the first kept event; the next sequence to come when none is kept. */
  get firstSequence(): number {
    this.expire();
    return this.entries[this.head]?.seq ?? this.lastSeq + 1;
  }

  /** Sequence of the last kept event whose subject matches `filter` (0 when none does). */
  lastMatching(filter: string): number {
    this.expire();
    const matches = subjectMatcher(filter);
    for (let i = this.entries.length - 1; i >= this.head; i--) {
      const event = this.entries[i];
      if (event !== undefined && matches(event.subject)) return event.seq;
    }
    return 0;
  }

  /** Events currently kept, oldest first (copies of the records, sharing the stored bytes). */
  snapshot(): StoredEvent[] {
    this.expire();
    return this.entries.slice(this.head) as StoredEvent[];
  }

  /** Total bytes kept, as counted against `maxBytes`. */
  get size(): number {
    this.expire();
    return this.bytes;
  }

  /**
   * Calls `listener` after each append of an event whose subject matches `filter` (every append
   * without one); returns the function that removes it. A consumer is woken only by what it may
   * deliver: every event used to wake every consumer, each to find nothing for it.
   */
  onAppend(listener: () => void, filter?: string): () => void {
    this.listeners.set(listener, filter === undefined ? undefined : subjectMatcher(filter));
    this.hearers.clear();
    return () => {
      this.hearers.clear();
      return this.listeners.delete(listener);
    };
  }

  /** Stores an event (the caller passes bytes and headers it no longer touches) and returns it. */
  append(subject: string, data: Uint8Array, headers: BusHeaders): StoredEvent {
    const now = this.now();
    this.expire(now);
    const event: StoredEvent = {
      seq: ++this.lastSeq,
      subject,
      data,
      headers,
      timestamp: now,
      size: storedSize(subject, headers, data),
    };
    this.entries.push(event);
    this.bytes += event.size;
    while (this.bytes > this.maxBytes && this.head < this.entries.length) this.dropHead();
    this.compact();
    for (const listener of this.hearersOf(subject)) listener();
    return event;
  }

  private hearersOf(subject: string): (() => void)[] {
    let hearers = this.hearers.get(subject);
    if (hearers === undefined) {
      hearers = [];
      for (const [listener, matches] of this.listeners) if (matches === undefined || matches(subject)) hearers.push(listener);
      if (this.hearers.size >= REMEMBERED_SUBJECTS) this.hearers.clear();
      this.hearers.set(subject, hearers);
    }
    return hearers;
  }

  /**
   * The first kept event with `seq >= fromSeq` whose subject matches `filter`, and the sequence
   * to scan from next time. Without a match that is past the last event: a consumer must not
   * rescan events it has already passed over, or every append would cost a scan of the whole log
   * for each consumer whose filter rarely matches.
   */
  next(fromSeq: number, filter: string): { event: StoredEvent | undefined; nextSeq: number } {
    this.expire();
    const matches = subjectMatcher(filter);
    for (let i = this.indexOf(fromSeq); i < this.entries.length; i++) {
      const event = this.entries[i];
      if (event !== undefined && matches(event.subject)) return { event, nextSeq: event.seq + 1 };
    }
    return { event: undefined, nextSeq: Math.max(fromSeq, this.lastSeq + 1) };
  }

  /** The kept event with sequence `seq`, if it has not expired. */
  get(seq: number): StoredEvent | undefined {
    this.expire();
    const event = this.entries[this.indexOf(seq)];
    return event?.seq === seq ? event : undefined;
  }

  /** Sequence of the first kept event stored at or after `timeMs`, else the next sequence to come. */
  firstSeqAtOrAfter(timeMs: number): number {
    this.expire();
    for (let i = this.head; i < this.entries.length; i++) {
      const event = this.entries[i];
      if (event !== undefined && event.timestamp >= timeMs) return event.seq;
    }
    return this.lastSeq + 1;
  }

  /**
   * Index of the first kept entry with `seq >= seq`. The kept entries hold consecutive sequences
   * (one per append; only the oldest are dropped), so it is found by subtraction, not searched.
   */
  private indexOf(seq: number): number {
    const first = this.entries[this.head];
    if (first === undefined) return this.entries.length;
    if (!(seq > first.seq)) return this.head;
    return Math.min(this.entries.length, this.head + Math.ceil(seq - first.seq));
  }

  private expire(now = this.now()): void {
    const oldest = now - this.maxAgeMs;
    let dropped = false;
    while (this.head < this.entries.length && (this.entries[this.head]?.timestamp ?? Infinity) < oldest) {
      this.dropHead();
      dropped = true;
    }
    if (dropped) this.compact();
  }

  private dropHead(): void {
    const event = this.entries[this.head];
    if (event !== undefined) this.bytes -= event.size;
    // released now, not at the next compaction: a full log drops one event per append
    this.entries[this.head] = undefined;
    this.head++;
  }

  /** Reclaims the dropped prefix once it is large, keeping appends and drops O(1) amortised. */
  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }
}
