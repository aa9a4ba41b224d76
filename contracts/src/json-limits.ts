import { AppError } from './errors';

/**
 * Limits on user JSON, shared by the gateway (which checks bodies before anything parses them) and
 * by every service that walks user JSON (query objects, workflow variables, template contexts).
 * A document nested deeper than this makes recursive code (JSON.stringify, validators, renderers)
 * overflow the stack; the edge refuses it with 400 `JSON_TOO_DEEP` instead.
 */

/** Default deepest nesting of objects and arrays accepted in user JSON (`NAP_MAX_JSON_DEPTH`). */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/** Default longest path parameter, in characters (`NAP_MAX_PARAM_LENGTH`). */
export const DEFAULT_MAX_PARAM_LENGTH = 512;

const limits = { maxJsonDepth: DEFAULT_MAX_JSON_DEPTH };

/**
 * Sets the process-wide depth limit from the configuration; the composition root (`@nap/runtime`)
 * calls it once at start. Every {@link assertJsonDepth} without an explicit limit uses it.
 */
export function configureJsonLimits(options: { maxJsonDepth?: number }): void {
  if (options.maxJsonDepth !== undefined) {
    if (!Number.isInteger(options.maxJsonDepth) || options.maxJsonDepth < 1)
      throw new RangeError(`maxJsonDepth must be a positive integer, got ${options.maxJsonDepth}`);
    limits.maxJsonDepth = options.maxJsonDepth;
  }
}

/** The depth limit in force (see {@link configureJsonLimits}). */
export function maxJsonDepth(): number {
  return limits.maxJsonDepth;
}

/**
 * True when `value` nests objects and arrays deeper than `max` levels (a scalar is depth 0,
 * `{}` and `[]` depth 1). Iterative, so it cannot overflow the stack however deep the value is,
 * and it stops at the first branch past the limit.
 */
export function exceedsJsonDepth(value: unknown, max: number = limits.maxJsonDepth): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: { value: object; depth: number }[] = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const top = stack.pop() as { value: object; depth: number };
    if (top.depth > max) return true;
    const members: unknown[] = Array.isArray(top.value) ? top.value : Object.values(top.value);
    for (const member of members) if (member !== null && typeof member === 'object') stack.push({ value: member, depth: top.depth + 1 });
  }
  return false;
}

/**
 * Throws 400 `JSON_TOO_DEEP` naming `what` and the limit when `value` nests deeper than `max`
 * (the configured limit by default).
 */
export function assertJsonDepth(value: unknown, what: string, max: number = limits.maxJsonDepth): void {
  if (exceedsJsonDepth(value, max)) throw jsonTooDeep(what, max);
}

/** The 400 answered for JSON nested deeper than `max`. */
export function jsonTooDeep(what: string, max: number): AppError {
  return new AppError('JSON_TOO_DEEP', `${what} nests objects and arrays deeper than the limit of ${max} levels (NAP_MAX_JSON_DEPTH)`, {
    details: [{ limit: max }],
  });
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when JSON text nests deeper than `max`, found by one pass over the bytes (brackets outside
 * strings), before the text is parsed. Malformed text is left to the parser to refuse.
 */
export function jsonTextExceedsDepth(text: Uint8Array, max: number = limits.maxJsonDepth): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}
