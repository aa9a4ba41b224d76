import { isBinary, isDate, isRegExp } from './values';

/**
 * A deep copy made of this realm's objects, normalised as storage would (functions, symbols and
 * undefined members dropped).
 */
export function cloneValue<T>(value: T): T {
  if (isDate(value)) return new Date(value.getTime()) as T;
  if (isRegExp(value)) return new RegExp(value.source, value.flags) as T;
  if (isBinary(value)) return Buffer.from(value) as unknown as T;
  if (Array.isArray(value)) {
    return value.map((v: unknown) => (v === undefined || typeof v === 'function' || typeof v === 'symbol' ? null : cloneValue(v))) as T;
  }
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
      out[k] = cloneValue(v);
    }
    return out as T;
  }
  return value;
}
