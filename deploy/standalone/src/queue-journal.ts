import type { WorkQueueName } from '@nap/contracts';
import type { JournaledEntry, QueueJournal, QueuedEntry } from '@nap/bus';
import type { Store } from '@nap/store';

/** An entry of the journal as stored: `_id` is `<queue>:<counter>`, zero-padded, so that ids sort as entries were kept. */
interface JournalDoc {
  _id: string;
  [member: string]: unknown;
  /** The id the entry was appended with (the audit entry's `entryId`). */
  id: string;
  /**
   * The entry's bytes as a latin1 string, one character a byte: lossless for any bytes, and for the
   * JSON the queues carry nearly as long as the bytes, where binary would cost a base64 encoding on
   * every append and a decoding on every release (the store keeps documents as JSON).
   */
  data: string;
}

/** The collection of the journal, in the store given to {@link createStoreQueueJournal}. */
export const QUEUE_JOURNAL_COLLECTION = 'queue_journal';
const COUNTER_DIGITS = 16;

/**
 * The in-process bus's work queue journal in a store (embedded: committed and flushed before a
 * write resolves, so an entry kept survives `kill -9`). Keys go on from the highest one kept, so
 * that what a crash left sorts before what comes after it; a queue's entries are one range of ids.
 * Opens by reading the ids kept (few: only what no consumer handled yet).
 */
export async function createStoreQueueJournal(store: Store): Promise<QueueJournal> {
  const entries = store.collection<JournalDoc>(QUEUE_JOURNAL_COLLECTION);
  let counter = 0;
  for (const doc of await entries.find({}, { projection: { _id: 1 } })) {
    const n = Number(doc._id.slice(doc._id.lastIndexOf(':') + 1));
    if (Number.isSafeInteger(n) && n > counter) counter = n;
  }
  const range = (queue: WorkQueueName) => ({ $gt: `${queue}:`, $lt: `${queue};` });
  return {
    async keep(queue: WorkQueueName, entry: QueuedEntry): Promise<string> {
      counter += 1;
      const key = `${queue}:${String(counter).padStart(COUNTER_DIGITS, '0')}`;
      const { data } = entry;
      await entries.insertOne({
        _id: key,
        id: entry.id,
        data: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1'),
      });
      return key;
    },
    async kept(queue: WorkQueueName): Promise<JournaledEntry[]> {
      const docs = await entries.find({ _id: range(queue) }, { sort: { _id: 1 } });
      return docs.map((doc) => ({
        key: doc._id,
        id: doc.id,
        data: new Uint8Array(Buffer.from(doc.data, 'latin1')),
      }));
    },
    async release(keys: readonly string[]): Promise<void> {
      if (keys.length > 0) await entries.deleteMany({ _id: { $in: [...keys] } });
    },
  };
}
