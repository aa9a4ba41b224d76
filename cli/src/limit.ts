import { usage } from './errors';

/**
 * A `--limit` value: `fallback` when none was given, else a whole number from 1 up to `max` (the
 * most the route answers in one page; none where the platform clamps it), or a usage error.
 */
export function limitOption(value: string | undefined, fallback: number, max?: number): number {
  if (value === undefined) return fallback;
  const limit = Number(value);
  if (Number.isInteger(limit) && limit >= 1 && (max === undefined || limit <= max)) return limit;
  throw usage(`--limit ${value}: expected ${max === undefined ? 'a positive whole number' : `a whole number from 1 to ${max}`}`);
}
