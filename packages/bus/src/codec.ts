const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** JSON to bytes; `undefined` becomes an empty payload. */
export function encodeJson(value: unknown): Uint8Array {
  return value === undefined ? new Uint8Array(0) : encoder.encode(JSON.stringify(value));
}

/** Bytes to JSON; an empty payload is `undefined`. */
export function decodeJson<T = unknown>(data: Uint8Array): T {
  return (data.length === 0 ? undefined : JSON.parse(decoder.decode(data))) as T;
}
