import type { WorkQueueName } from '@nap/contracts';
import type { JournaledEntry, QueueJournal, QueuedEntry } from '@nap/bus';
import type { Store } from '@nap/store';

/**
 * A document of the journal: the entries of one queue kept together (those appended in one turn of
 * the event loop). `_id` is `<queue>:<counter>`, zero-padded, so that ids sort as documents were
 * written; an entry's key is `<_id>#<its index>`.
 */
interface JournalDoc {
  _id: string;
  [member: string]: unknown;
  entries: JournalDocEntry[];
}

interface JournalDocEntry {
  /** The id the entry was appended with (the audit entry's `entryId`). */
  id: string;
  /**
   * The entry's bytes as a latin1 string, one character a byte: lossless for any bytes, and for the
   * JSON the queues carry nearly as long as the bytes, where binary would cost a base64 encoding on
   * every append and a decoding on every release (the store keeps documents as JSON).
   */
  data: string;
}

/** Entries gathered for the next document of a queue, and the write they wait for. */
interface Group {
  key: string;
  entries: JournalDocEntry[];
  bytes: number;
  written: Promise<void>;
}

/** The collection of the journal, in the store given to {@link createStoreQueueJournal}. */
export const QUEUE_JOURNAL_COLLECTION = 'queue_journal';
const COUNTER_DIGITS = 16;
/** Most entries and bytes one document holds; past them the next append starts another. */
const GROUP_ENTRIES = 512;
const GROUP_BYTES = 1024 * 1024;

/**
 * The in-process bus's work queue journal in a store (embedded: committed and flushed before a
 * write resolves, so an entry kept survives `kill -9`). The appends of one turn of the event loop
 * go into one document, one store write for all of them (each one alone cost a write and a delete
 * as dear as the audit record it stands for); a document is deleted once every entry of it was
 * released. Document ids go on from the highest one kept, so that what a crash left sorts before
 * what comes after it; a queue's documents are one range of ids. Opens by reading the ids kept
 * (few: only documents with an entry no consumer handled yet).
 */
export async function createStoreQueueJournal(store: Store): Promise<QueueJournal> {
  const docs = store.collection<JournalDoc>(QUEUE_JOURNAL_COLLECTION);
  let counter = 0;
  for (const doc of await docs.find({}, { projection: { _id: 1 } })) {
    const n = Number(doc._id.slice(doc._id.lastIndexOf(':') + 1));
    if (Number.isSafeInteger(n) && n > counter) counter = n;
  }
  const range = (queue: WorkQueueName) => ({ $gt: `${queue}:`, $lt: `${queue};` });
  const groups = new Map<WorkQueueName, Group>();
  /** Entries of each document not released yet: the document goes when none is left. */
  const unreleased = new Map<string, number>();

  function groupOf(queue: WorkQueueName, bytes: number): Group {
    const open = groups.get(queue);
    if (open !== undefined && open.entries.length < GROUP_ENTRIES && open.bytes + bytes <= GROUP_BYTES) return open;
    counter += 1;
    const key = `${queue}:${String(counter).padStart(COUNTER_DIGITS, '0')}`;
    const entries: JournalDocEntry[] = [];
    const group: Group = {
      key,
      entries,
      bytes: 0,
      // written on the next turn, with whatever else was appended meanwhile
      written: new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
        if (groups.get(queue) === group) groups.delete(queue);
        unreleased.set(key, entries.length);
        try {
          await docs.insertOne({ _id: key, entries });
        } catch (err) {
          unreleased.delete(key);
          throw err;
        }
      }),
    };
    groups.set(queue, group);
    return group;
  }

  return {
    async keep(queue: WorkQueueName, entry: QueuedEntry): Promise<string> {
      const { data } = entry;
      const group = groupOf(queue, data.byteLength);
      const index =
        group.entries.push({ id: entry.id, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1') }) - 1;
      group.bytes += data.byteLength;
      await group.written;
      return `${group.key}#${index}`;
    },
    async kept(queue: WorkQueueName): Promise<JournaledEntry[]> {
      const kept: JournaledEntry[] = [];
      for (const doc of await docs.find({ _id: range(queue) }, { sort: { _id: 1 } })) {
        // a document written by this process knows its count already
        if (!unreleased.has(doc._id)) unreleased.set(doc._id, doc.entries.length);
        doc.entries.forEach((e, i) => kept.push({ key: `${doc._id}#${i}`, id: e.id, data: new Uint8Array(Buffer.from(e.data, 'latin1')) }));
      }
      return kept;
    },
    async release(keys: readonly string[]): Promise<void> {
      const done: string[] = [];
      for (const key of keys) {
        const doc = key.slice(0, key.lastIndexOf('#'));
        const left = unreleased.get(doc);
        if (left === undefined) continue;
        if (left > 1) unreleased.set(doc, left - 1);
        else {
          unreleased.delete(doc);
          done.push(doc);
        }
      }
      if (done.length > 0) await docs.deleteMany({ _id: { $in: done } });
    },
  };
}
