/**
 * Binary, order-preserving encoding of index key components.
 *
 * An index entry key is `u32 index number | component | component | … | UTF-8 _id`. Each component
 * is self-delimiting and prefix-free, so byte order of whole keys is the order of the component
 * tuples, then of the ids, and a component can be inverted byte by byte for descending fields.
 *
 * Component type bytes follow the type order of MongoDB and mingo: null and missing (one class) <
 * numbers < strings < objects < arrays < binary < booleans < dates < regexps.
 * Some components are *inexact*: objects, long strings cut to a prefix, regexps, binary and
 * anything unusual. An inexact component stands for a class of values, so the index only narrows
 * candidates; every candidate is still tested against the full filter, and unique checks compare
 * the real values.
 */
import { isPlainObject } from '@nap/util';
import { isBinary, isDate, isRegExp } from '../values';

export const KEY_TYPE = {
  NULL: 0x02,
  NUMBER: 0x03,
  STRING: 0x04,
  OBJECT: 0x06,
  ARRAY: 0x07,
  BINARY: 0x08,
  BOOLEAN: 0x09,
  DATE: 0x0a,
  REGEXP: 0x0b,
  OTHER: 0x0c,
} as const;
export type KEY_TYPE = (typeof KEY_TYPE)[keyof typeof KEY_TYPE];

/** LMDB's default maximum key size in bytes (4 KiB pages). */
export const MAX_KEY_BYTES = 1978;
/** Longest `_id` the embedded store accepts, in UTF-8 bytes, so index keys always fit. */
export const MAX_ID_BYTES = 512;
/** Bytes left for the components of one index key. */
const COMPONENT_BUDGET_BYTES = MAX_KEY_BYTES - 4 - MAX_ID_BYTES - 32;

const STRING_END = 0x01;
const STRING_END_TRUNCATED = 0x02;
const ESCAPED_ZERO = 0xff;

/** One encoded component, always in ascending form; `exact` is false when it stands for a class of values. */
export interface Component {
  bytes: Buffer;
  exact: boolean;
}

/** Longest raw string prefix kept in a key component of an index with `fieldCount` fields. */
export function maxStringBytes(fieldCount: number): number {
  // Escaping can double a string made of NUL characters, hence the halving.
  return Math.max(16, Math.floor(COMPONENT_BUDGET_BYTES / Math.max(1, fieldCount) / 2) - 4);
}

function encodeDouble(type: number, value: number): Buffer {
  const out = Buffer.allocUnsafe(9);
  out[0] = type;
  if (Number.isNaN(value)) {
    // mingo's native numeric sort puts NaN after every number.
    out.fill(0xff, 1);
    return out;
  }
  out.writeDoubleBE(value === 0 ? 0 : value, 1);
  if ((out[1] as number) & 0x80) {
    for (let i = 1; i < 9; i++) out[i] = ~(out[i] as number) & 0xff;
  } else {
    out[1] = (out[1] as number) | 0x80;
  }
  return out;
}

function encodeString(value: string, maxBytes: number): Component {
  // the common case, a string that fits and holds no NUL: written once into its component
  if (value.length <= maxBytes / 3 && !value.includes('\0')) {
    const length = Buffer.byteLength(value, 'utf8');
    const out = Buffer.allocUnsafe(1 + length + 2);
    out[0] = KEY_TYPE.STRING;
    out.write(value, 1, length, 'utf8');
    out[1 + length] = 0;
    out[2 + length] = STRING_END;
    return { bytes: out, exact: true };
  }
  let raw = Buffer.from(value, 'utf8');
  let truncated = false;
  if (raw.length > maxBytes) {
    raw = raw.subarray(0, maxBytes);
    truncated = true;
  }
  let zeros = 0;
  for (const byte of raw) if (byte === 0) zeros++;
  const out = Buffer.allocUnsafe(1 + raw.length + zeros + 2);
  out[0] = KEY_TYPE.STRING;
  let at = 1;
  if (zeros === 0) {
    raw.copy(out, 1);
    at += raw.length;
  } else {
    for (const byte of raw) {
      out[at++] = byte;
      if (byte === 0) out[at++] = ESCAPED_ZERO;
    }
  }
  out[at++] = 0;
  out[at] = truncated ? STRING_END_TRUNCATED : STRING_END;
  return { bytes: out, exact: !truncated };
}

/** Encodes one value (never an array with elements: callers flatten those) in ascending form. */
export function encodeComponent(value: unknown, maxBytes: number): Component {
  if (value === null || value === undefined) return { bytes: Buffer.from([KEY_TYPE.NULL]), exact: true };
  switch (typeof value) {
    case 'number':
      return { bytes: encodeDouble(KEY_TYPE.NUMBER, value), exact: true };
    case 'string':
      return encodeString(value, maxBytes);
    case 'boolean':
      return { bytes: Buffer.from([KEY_TYPE.BOOLEAN, value ? 1 : 0]), exact: true };
    case 'object':
      if (isDate(value)) return { bytes: encodeDouble(KEY_TYPE.DATE, value.getTime()), exact: true };
      if (Array.isArray(value)) return { bytes: Buffer.from([KEY_TYPE.ARRAY]), exact: value.length === 0 };
      if (isRegExp(value)) return { bytes: Buffer.from([KEY_TYPE.REGEXP]), exact: false };
      if (isBinary(value)) return { bytes: Buffer.from([KEY_TYPE.BINARY]), exact: false };
      if (isPlainObject(value)) return { bytes: Buffer.from([KEY_TYPE.OBJECT]), exact: false };
      return { bytes: Buffer.from([KEY_TYPE.OTHER]), exact: false };
    default:
      return { bytes: Buffer.from([KEY_TYPE.OTHER]), exact: false };
  }
}

/** The component's type byte (ascending form). */
export function componentType(ascending: Buffer): number {
  return ascending[0] as number;
}

/** Bitwise inversion: turns an ascending component into its descending form and back. */
export function invert(bytes: Buffer): Buffer {
  const out = Buffer.allocUnsafe(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = ~(bytes[i] as number) & 0xff;
  return out;
}

/** The component as stored for a field of direction `direction`. */
export function directed(ascending: Buffer, direction: 1 | -1): Buffer {
  return direction === 1 ? ascending : invert(ascending);
}

/**
 * The smallest byte string greater than every string that starts with `bytes`, or `undefined`
 * when there is none (all bytes 0xff).
 */
export function successor(bytes: Buffer): Buffer | undefined {
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i] !== 0xff) {
      const out = Buffer.from(bytes.subarray(0, i + 1));
      out[i] = (out[i] as number) + 1;
      return out;
    }
  }
  return undefined;
}

/** Offset just past the component that starts at `offset`, stored in direction `direction`. */
export function componentEnd(key: Buffer, offset: number, direction: 1 | -1): number {
  const flip = direction === 1 ? 0 : 0xff;
  const type = ((key[offset] as number) ^ flip) & 0xff;
  switch (type) {
    case KEY_TYPE.NUMBER:
    case KEY_TYPE.DATE:
      return offset + 9;
    case KEY_TYPE.BOOLEAN:
      return offset + 2;
    case KEY_TYPE.STRING: {
      let at = offset + 1;
      for (;;) {
        const byte = ((key[at] as number) ^ flip) & 0xff;
        if (byte === 0) {
          const next = ((key[at + 1] as number) ^ flip) & 0xff;
          if (next !== ESCAPED_ZERO) return at + 2;
          at += 2;
        } else {
          at += 1;
        }
        if (at >= key.length) throw new Error('corrupt index key: unterminated string component');
      }
    }
    default:
      return offset + 1;
  }
}

/** True when a stored component (in direction `direction`) stands for exactly one value class member. */
export function isExactComponent(key: Buffer, start: number, end: number, direction: 1 | -1): boolean {
  const flip = direction === 1 ? 0 : 0xff;
  const type = ((key[start] as number) ^ flip) & 0xff;
  switch (type) {
    case KEY_TYPE.NULL:
    case KEY_TYPE.NUMBER:
    case KEY_TYPE.BOOLEAN:
    case KEY_TYPE.DATE:
      return true;
    case KEY_TYPE.STRING:
      return (((key[end - 1] as number) ^ flip) & 0xff) === STRING_END;
    default:
      return false;
  }
}

/** A `u32` big-endian prefix (collection or index number). */
export function numberPrefix(no: number): Buffer {
  const out = Buffer.allocUnsafe(NUMBER_PREFIX_BYTES);
  writeNumberPrefix(out, no);
  return out;
}

/** Bytes of a {@link numberPrefix}. */
export const NUMBER_PREFIX_BYTES = 4;

/** Writes the {@link numberPrefix} of `no` at the start of `out` (a key built in one buffer). */
export function writeNumberPrefix(out: Buffer, no: number): void {
  out.writeUInt32BE(no, 0);
}
