/**
 * Values inside a run: JSON values plus the objects declarations make (Date, RegExp, Set). Library
 * methods never change a value they are given (they answer copies), so a value can be shared
 * between steps without being copied; writes through JSON Pointers copy the path they change.
 */

export type Obj = Record<string, unknown>;

/**
 * An object whose prototype is `Object.prototype` or null. Not `@nap/util`'s `isPlainObject`, which
 * also takes objects of another realm (and any object one prototype away from null) and refuses one
 * with a `Symbol.toStringTag`: the engine's rule decides which values steps treat as objects, and
 * must stay the one the fixture transformations were checked against.
 */
export function isPlainObject(value: unknown): value is Obj {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** How a value is named in messages: `string`, `array`, `null`, `undefined`, `object`, `Date`, … */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Date) return 'Date';
  if (value instanceof RegExp) return 'RegExp';
  if (value instanceof Set) return 'Set';
  return typeof value;
}

/** The tokens of a JSON Pointer (RFC 6901): `""` → `[]`, `/a/b~1c` → `['a', 'b/c']`. Undefined for text that is not a pointer. */
export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** An own member of an object or an index of an array; nothing from prototypes. */
export function member(value: unknown, key: string): unknown {
  if (Array.isArray(value)) {
    if (key === 'length') return value.length;
    return /^(0|[1-9]\d*)$/.test(key) ? value[Number(key)] : undefined;
  }
  if (typeof value === 'string') {
    if (key === 'length') return value.length;
    return /^(0|[1-9]\d*)$/.test(key) ? value[Number(key)] : undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  return Object.hasOwn(value, key) ? (value as Obj)[key] : undefined;
}

/** The value at `tokens` inside `value`; undefined where the path leads nowhere. */
export function getIn(value: unknown, tokens: readonly string[]): unknown {
  let current = value;
  for (const token of tokens) {
    if (current === undefined || current === null) return undefined;
    current = member(current, token);
  }
  return current;
}

/** A copy of `obj` with member `key` set (an own data member, even for `__proto__`). */
export function withMember(obj: Obj, key: string, value: unknown): Obj {
  const copy: Obj = { ...obj };
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/**
 * `root` with `value` at `tokens`, copying only the containers on the path (the rest is shared).
 * Missing containers become objects; an array on the path takes an index or `-` (append).
 */
export function setIn(root: unknown, tokens: readonly string[], value: unknown): unknown {
  if (tokens.length === 0) return value;
  const [head, ...rest] = tokens as [string, ...string[]];
  if (Array.isArray(root)) {
    const copy = [...root];
    const index = head === '-' ? copy.length : Number(head);
    if (!Number.isInteger(index) || index < 0) throw new Error(`"${head}" is not an index of an array`);
    copy[index] = setIn(copy[index], rest, value);
    return copy;
  }
  const base: Obj = isPlainObject(root) ? root : {};
  return withMember(base, head, setIn(member(base, head), rest, value));
}
