import { usage } from './errors';

const UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90`, `90s`, `5m`, `1h30m`, `2d` as milliseconds (a bare number is seconds). */
export function parseDuration(text: string, flag: string): number {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  const parts = [...t.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== t)
    throw usage(`${flag} ${text}: expected a duration such as 30s, 5m, 1h or 2d`);
  return Math.round(parts.reduce((sum, p) => sum + Number(p[1]) * (UNITS_MS[p[2] as string] ?? 0), 0));
}

/**
 * A moment given on the command line, as epoch milliseconds: a duration (`30m`, `2d`) is that long
 * ago; an ISO 8601 date or time is read as `Date` reads it (`2026-12-01` is its midnight UTC, a time
 * without a zone is local); anything else is refused, naming the flag (exit 4).
 */
export function parseMoment(text: string, flag: string, now = Date.now()): number {
  if (/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(text.trim())) return now - parseDuration(text, flag);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(Date.parse(text)))
    throw usage(`${flag} ${text}: expected an ISO 8601 time (2026-12-01T09:00:00Z) or a duration ago (30m, 1h, 2d)`);
  return Date.parse(text);
}

/** A duration for people: `850ms`, `12s`, `3m04s`, `2h05m`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}
