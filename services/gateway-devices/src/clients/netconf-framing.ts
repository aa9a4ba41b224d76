/**
 * NETCONF message framing over SSH (RFC 6242): base:1.0 ends each message with `]]>]]>`; base:1.1
 * sends chunks (`\n#<octets>\n<data>`) closed by `\n##\n`. Chunk sizes count octets, so decoding
 * works on bytes and turns complete messages into text only at the end.
 */

/** Framing in use: `eom` (base:1.0 end-of-message) or `chunked` (base:1.1). */
export type NetconfFraming = 'eom' | 'chunked';

/** The base:1.0 end-of-message marker. */
export const EOM_MARKER = ']]>]]>';

const EOM = Buffer.from(EOM_MARKER);
// RFC 6242 §4.2: chunk-size is 1..4294967295.
const MAX_CHUNK_SIZE = 4_294_967_295;

/** Frames one message for sending. */
export function encodeMessage(xml: string, framing: NetconfFraming): string {
  if (framing === 'eom') return `${xml}\n${EOM_MARKER}`;
  return `\n#${Buffer.byteLength(xml, 'utf8')}\n${xml}\n##\n`;
}

/** Thrown when the peer breaks the framing; the session cannot continue. */
export class NetconfFramingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NetconfFramingError';
  }
}

/** Largest message the decoder takes (a hello or a reply, whole), bytes: 64 MiB, far above any reply the bus can carry back. */
export const MAX_NETCONF_MESSAGE_BYTES = 64 * 1024 * 1024;

/** Room a {@link ByteQueue} keeps once emptied, bytes. */
const ROOM_KEPT_BYTES = 1024 * 1024;

/**
 * Bytes added at the end and taken from the front, in one buffer that doubles when full: adding
 * costs a constant per byte however small the reads, where concatenating on every read would copy
 * the whole message again each time.
 */
class ByteQueue {
  private store: Buffer = Buffer.alloc(0);
  private start = 0;
  private end = 0;

  get length(): number {
    return this.end - this.start;
  }

  append(data: Buffer): void {
    if (this.end + data.length > this.store.length) {
      const length = this.length;
      const grown = Buffer.allocUnsafe(Math.max(2 * (length + data.length), 4096));
      this.store.copy(grown, 0, this.start, this.end);
      this.store = grown;
      this.start = 0;
      this.end = length;
    }
    data.copy(this.store, this.end);
    this.end += data.length;
  }

  /** The bytes held, valid until the next change. */
  view(): Buffer {
    return this.store.subarray(this.start, this.end);
  }

  /** Drops `count` bytes from the front. */
  skip(count: number): void {
    this.start += count;
    if (this.start >= this.end) this.clear();
  }

  clear(): void {
    this.start = 0;
    this.end = 0;
    // a large reply's room is given back rather than kept for the rest of the session
    if (this.store.length > ROOM_KEPT_BYTES) this.store = Buffer.alloc(0);
  }
}

/**
 * Incremental decoder: feed it bytes as they arrive, take complete messages out. The framing can be
 * switched after the hello exchange; bytes already buffered are decoded with the new framing. A
 * message longer than `maxMessageBytes` (default {@link MAX_NETCONF_MESSAGE_BYTES}) is a
 * {@link NetconfFramingError}: a device that answers without end cannot fill the gateway's memory.
 */
export class FramingDecoder {
  private readonly input = new ByteQueue();
  /** Base:1.1: the data of the chunks of the message under way. */
  private readonly chunks = new ByteQueue();
  private remaining = 0;
  /** Base:1.0: how far the input is known to hold no marker, so each byte is searched about once. */
  private scanned = 0;
  private readonly maxMessageBytes: number;

  constructor(
    private framing: NetconfFraming = 'eom',
    options: { maxMessageBytes?: number } = {},
  ) {
    this.maxMessageBytes = options.maxMessageBytes ?? MAX_NETCONF_MESSAGE_BYTES;
  }

  /** Switches framing (after the hello exchange). */
  setFraming(framing: NetconfFraming): void {
    this.framing = framing;
    this.scanned = 0;
  }

  /** Current framing. */
  getFraming(): NetconfFraming {
    return this.framing;
  }

  /** Adds received bytes and returns every message they complete, as text. */
  push(data: Buffer): string[] {
    this.input.append(data);
    const messages: string[] = [];
    for (;;) {
      const message = this.framing === 'eom' ? this.nextEom() : this.nextChunked();
      if (message === undefined) return messages;
      messages.push(message);
    }
  }

  private tooLong(): NetconfFramingError {
    return new NetconfFramingError(`A message is longer than ${this.maxMessageBytes} bytes, the most a NETCONF reply may be`);
  }

  private nextEom(): string | undefined {
    const buffered = this.input.view();
    const end = buffered.indexOf(EOM, this.scanned);
    if (end < 0) {
      if (buffered.length > this.maxMessageBytes + EOM.length) throw this.tooLong();
      // the marker may begin in the last bytes and end in the next read
      this.scanned = Math.max(0, buffered.length - (EOM.length - 1));
      return undefined;
    }
    if (end > this.maxMessageBytes) throw this.tooLong();
    const message = buffered.subarray(0, end).toString('utf8');
    this.input.skip(end + EOM.length);
    this.scanned = 0;
    return message.trim();
  }

  private nextChunked(): string | undefined {
    for (;;) {
      const buffered = this.input.view();
      if (this.remaining > 0) {
        if (buffered.length === 0) return undefined;
        const take = Math.min(this.remaining, buffered.length);
        if (this.chunks.length + take > this.maxMessageBytes) throw this.tooLong();
        this.chunks.append(buffered.subarray(0, take));
        this.input.skip(take);
        this.remaining -= take;
        if (this.remaining > 0) return undefined;
        continue;
      }
      // A header: LF '#' then either '#' LF (end of chunks) or digits LF.
      if (buffered.length < 4) return undefined;
      if (buffered[0] !== 0x0a || buffered[1] !== 0x23) {
        throw new NetconfFramingError(`Expected a chunk header, got ${JSON.stringify(buffered.subarray(0, 16).toString('latin1'))}`);
      }
      if (buffered[2] === 0x23) {
        if (buffered[3] !== 0x0a) throw new NetconfFramingError('Malformed end-of-chunks marker');
        this.input.skip(4);
        const message = this.chunks.view().toString('utf8');
        this.chunks.clear();
        return message.trim();
      }
      const lf = buffered.indexOf(0x0a, 2);
      if (lf < 0) {
        if (buffered.length > 13) throw new NetconfFramingError('Chunk size too long');
        return undefined;
      }
      const digits = buffered.subarray(2, lf).toString('latin1');
      if (!/^[1-9][0-9]{0,9}$/.test(digits) || Number(digits) > MAX_CHUNK_SIZE) {
        throw new NetconfFramingError(`Invalid chunk size ${JSON.stringify(digits)}`);
      }
      this.remaining = Number(digits);
      this.input.skip(lf + 1);
    }
  }
}
