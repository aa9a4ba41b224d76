/**
 * Type tests that hold across JavaScript realms (a test's VM context, worker threads): they look
 * at the built-in tag or prototype chain, never at `instanceof`.
 */
const tagOf = (value: unknown): string => Object.prototype.toString.call(value);

export function isDate(value: unknown): value is Date {
  return typeof value === 'object' && value !== null && tagOf(value) === '[object Date]';
}

export function isRegExp(value: unknown): value is RegExp {
  return typeof value === 'object' && value !== null && tagOf(value) === '[object RegExp]';
}

export function isBinary(value: unknown): value is Uint8Array {
  return ArrayBuffer.isView(value) && tagOf(value) === '[object Uint8Array]';
}
