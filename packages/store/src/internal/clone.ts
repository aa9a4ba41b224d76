import { isBinary, isDate, isRegExp } from './values';

/**
 * A deep copy made of this realm's objects, normalised as storage would (functions, symbols and
 * undefined members dropped).
 */
export function cloneValue<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    return value.map((v: unknown) => (v === undefined || typeof v === 'function' || typeof v === 'symbol' ? null : cloneValue(v))) as T;
  }
  // a plain object of this realm is neither a date, a regular expression nor binary: the tag tests
  // (which must hold across realms) are only needed for the others
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    if (isDate(value)) return new Date(value.getTime()) as T;
    if (isRegExp(value)) return new RegExp(value.source, value.flags) as T;
    if (isBinary(value)) return Buffer.from(value) as unknown as T;
  }
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    out[k] = cloneValue(v);
  }
  return out as T;
}
