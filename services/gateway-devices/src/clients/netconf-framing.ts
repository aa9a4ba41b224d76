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

/**
 * Incremental decoder: feed it bytes as they arrive, take complete messages out. The framing can be
 * switched after the hello exchange; bytes already buffered are decoded with the new framing.
 */
export class FramingDecoder {
  private buffer: Buffer = Buffer.alloc(0);
  private chunks: Buffer[] = [];
  private remaining = 0;

  constructor(private framing: NetconfFraming = 'eom') {}

  /** Switches framing (after the hello exchange). */
  setFraming(framing: NetconfFraming): void {
    this.framing = framing;
  }

  /** Current framing. */
  getFraming(): NetconfFraming {
    return this.framing;
  }

  /** Adds received bytes and returns every message they complete, as text. */
  push(data: Buffer): string[] {
    this.buffer = this.buffer.length === 0 ? data : Buffer.concat([this.buffer, data]);
    const messages: string[] = [];
    for (;;) {
      const message = this.framing === 'eom' ? this.nextEom() : this.nextChunked();
      if (message === undefined) return messages;
      messages.push(message);
    }
  }

  private nextEom(): string | undefined {
    const end = this.buffer.indexOf(EOM);
    if (end < 0) return undefined;
    const message = this.buffer.subarray(0, end).toString('utf8');
    this.buffer = this.buffer.subarray(end + EOM.length);
    return message.trim();
  }

  private nextChunked(): string | undefined {
    for (;;) {
      if (this.remaining > 0) {
        if (this.buffer.length === 0) return undefined;
        const take = Math.min(this.remaining, this.buffer.length);
        this.chunks.push(this.buffer.subarray(0, take));
        this.buffer = this.buffer.subarray(take);
        this.remaining -= take;
        if (this.remaining > 0) return undefined;
        continue;
      }
      // A header: LF '#' then either '#' LF (end of chunks) or digits LF.
      if (this.buffer.length < 4) return undefined;
      if (this.buffer[0] !== 0x0a || this.buffer[1] !== 0x23) {
        throw new NetconfFramingError(`Expected a chunk header, got ${JSON.stringify(this.buffer.subarray(0, 16).toString('latin1'))}`);
      }
      if (this.buffer[2] === 0x23) {
        if (this.buffer[3] !== 0x0a) throw new NetconfFramingError('Malformed end-of-chunks marker');
        this.buffer = this.buffer.subarray(4);
        const message = Buffer.concat(this.chunks).toString('utf8');
        this.chunks = [];
        return message.trim();
      }
      const lf = this.buffer.indexOf(0x0a, 2);
      if (lf < 0) {
        if (this.buffer.length > 13) throw new NetconfFramingError('Chunk size too long');
        return undefined;
      }
      const digits = this.buffer.subarray(2, lf).toString('latin1');
      if (!/^[1-9][0-9]{0,9}$/.test(digits) || Number(digits) > MAX_CHUNK_SIZE) {
        throw new NetconfFramingError(`Invalid chunk size ${JSON.stringify(digits)}`);
      }
      this.remaining = Number(digits);
      this.buffer = this.buffer.subarray(lf + 1);
    }
  }
}
