import { isBinary, isDate, isRegExp } from './values';

/** What a copy met on its way: `special` once it copied a value JSON cannot carry (a date, a regular expression, binary, a non-finite number, a bigint). */
export interface CloneNotes {
  special: boolean;
}

/**
 * A deep copy made of this realm's objects, normalised as storage would (functions, symbols and
 * undefined members dropped). With `notes`, says whether it met a value JSON cannot carry, so that
 * the embedded store can encode the copy without walking it again (see `doc-codec`).
 */
export function cloneValue<T>(value: T, notes?: CloneNotes): T {
  if (typeof value !== 'object' || value === null) {
    if (notes !== undefined && (typeof value === 'bigint' || (typeof value === 'number' && !Number.isFinite(value)))) notes.special = true;
    return value;
  }
  if (Array.isArray(value)) {
    return value.map((v: unknown) =>
      v === undefined || typeof v === 'function' || typeof v === 'symbol' ? null : cloneValue(v, notes),
    ) as T;
  }
  // a plain object of this realm is neither a date, a regular expression nor binary: the tag tests
  // (which must hold across realms) are only needed for the others
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    const special = isDate(value) || isRegExp(value) || isBinary(value);
    if (special && notes !== undefined) notes.special = true;
    if (isDate(value)) return new Date(value.getTime()) as T;
    if (isRegExp(value)) return new RegExp(value.source, value.flags) as T;
    if (isBinary(value)) return Buffer.from(value) as unknown as T;
  }
  const out: Record<string, unknown> = {};
  // for…in rather than Object.keys: no array made for every object of every document copied
  for (const k in value) {
    if (!Object.hasOwn(value, k)) continue;
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    // an own __proto__ (JSON.parse makes them) stays a member: an assignment would set the copy's prototype instead
    if (k === '__proto__')
      Object.defineProperty(out, k, { value: cloneValue(v, notes), enumerable: true, writable: true, configurable: true });
    else out[k] = cloneValue(v, notes);
  }
  return out as T;
}
