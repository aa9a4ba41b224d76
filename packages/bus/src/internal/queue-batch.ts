import type { QueuedEntry } from '../types';

/**
 * Several work queue entries in one JetStream message: the appends of one turn of the event loop
 * travel together, one publish and one acknowledgement for all of them. The message carries the
 * header `Nap-Queue-Entries` (how many) and, for each entry in order, its id's length (4 bytes, big
 * endian), the id (UTF-8), its data's length (4 bytes) and the data. A message without the header
 * is one entry, its id the `Nats-Msg-Id`.
 */
export const QUEUE_BATCH_HEADER = 'Nap-Queue-Entries';

const LENGTH_BYTES = 4;

/** The body of a message carrying `entries`. */
export function encodeQueueBatch(entries: readonly QueuedEntry[]): Uint8Array {
  const ids = entries.map((e) => Buffer.from(e.id, 'utf8'));
  let size = 0;
  entries.forEach((e, i) => (size += 2 * LENGTH_BYTES + (ids[i] as Buffer).length + e.data.byteLength));
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  entries.forEach((e, i) => {
    const id = ids[i] as Buffer;
    at = out.writeUInt32BE(id.length, at);
    at += id.copy(out, at);
    at = out.writeUInt32BE(e.data.byteLength, at);
    out.set(e.data, at);
    at += e.data.byteLength;
  });
  return out;
}

/**
 * The entries of a message body made by {@link encodeQueueBatch}, each with data of its own;
 * throws when the body does not hold exactly `count` entries.
 */
export function decodeQueueBatch(body: Uint8Array, count: number): QueuedEntry[] {
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const entries: QueuedEntry[] = [];
  let at = 0;
  const take = (): Buffer => {
    if (at + LENGTH_BYTES > buf.length) throw new Error(`A queue batch ends inside a length, at byte ${at} of ${buf.length}`);
    const length = buf.readUInt32BE(at);
    at += LENGTH_BYTES;
    if (at + length > buf.length) throw new Error(`A queue batch ends inside a part of ${length} bytes, at byte ${at} of ${buf.length}`);
    const part = buf.subarray(at, at + length);
    at += length;
    return part;
  };
  while (at < buf.length) {
    const id = take().toString('utf8');
    entries.push({ id, data: new Uint8Array(take()) });
  }
  if (entries.length !== count) throw new Error(`A queue batch holds ${entries.length} entries where its header says ${count}`);
  return entries;
}
