import type { SyncBuiltin } from './types';
import { isRecord } from '@nap/util';
import { TaskInputError, needString, success } from './types';

const UNIT_MS: Record<string, number> = {
  millisecond: 1,
  milliseconds: 1,
  ms: 1,
  second: 1_000,
  seconds: 1_000,
  s: 1_000,
  minute: 60_000,
  minutes: 60_000,
  m: 60_000,
  hour: 3_600_000,
  hours: 3_600_000,
  h: 3_600_000,
  day: 86_400_000,
  days: 86_400_000,
  d: 86_400_000,
  week: 604_800_000,
  weeks: 604_800_000,
  w: 604_800_000,
};

const ISO_DURATION =
  /^([+-])?P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i;

/**
 * An offset in milliseconds from: a number (ms), an ISO 8601 duration (`P1D`, `-PT2H`), text such as
 * `-3 days`, or an object of units (`{ days: -30, hours: 2 }`). Empty means none.
 */
export function durationMs(value: unknown): number {
  if (value === '' || value === null || value === undefined) return 0;
  if (typeof value === 'number') return value;
  if (isRecord(value)) {
    let total = 0;
    for (const [unit, amount] of Object.entries(value)) {
      const factor = UNIT_MS[unit.toLowerCase()];
      if (factor === undefined || typeof amount !== 'number')
        throw new TaskInputError(
          `Duration member "${unit}" is not a unit with a number (days, hours, minutes, seconds, milliseconds, weeks)`,
        );
      total += factor * amount;
    }
    return total;
  }
  if (typeof value === 'string') {
    const iso = ISO_DURATION.exec(value.trim());
    if (iso) {
      const [, sign, w, d, h, m, s] = iso;
      const ms =
        Number(w ?? 0) * 604_800_000 +
        Number(d ?? 0) * 86_400_000 +
        Number(h ?? 0) * 3_600_000 +
        Number(m ?? 0) * 60_000 +
        Number(s ?? 0) * 1_000;
      return sign === '-' ? -ms : ms;
    }
    const text = /^([+-]?\d+(?:\.\d+)?)\s*([a-z]+)$/i.exec(value.trim());
    const factor = text ? UNIT_MS[(text[2] ?? '').toLowerCase()] : undefined;
    if (text && factor !== undefined) return Number(text[1]) * factor;
  }
  throw new TaskInputError(`Duration ${JSON.stringify(value)} is not understood; give milliseconds, an ISO 8601 duration or "<n> <unit>"`);
}

/** `-04:00`, `+0530`, `Z` or empty (UTC) → offset in minutes. */
function offsetMinutes(zone: unknown): number {
  if (zone === '' || zone === null || zone === undefined || zone === 'Z' || zone === 'UTC') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(needString(zone, 'timezone').trim());
  if (!m) throw new TaskInputError(`Timezone ${JSON.stringify(zone)} must be an offset such as -04:00 or +05:30`);
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -minutes : minutes;
}

function pad(n: number, width = 2): string {
  return String(Math.abs(n)).padStart(width, '0');
}

/** Formats `epochMs` at a UTC offset with the tokens YYYY MM DD HH mm ss SSS Z (ISO 8601 when the format is empty). */
export function formatTime(epochMs: number, offset: number, format: string): string {
  const local = new Date(epochMs + offset * 60_000);
  const zone =
    offset === 0 && format === ''
      ? 'Z'
      : `${offset < 0 ? '-' : '+'}${pad(Math.trunc(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  const pattern = format === '' ? 'YYYY-MM-DDTHH:mm:ss.SSSZ' : format;
  const tokens: Record<string, string> = {
    YYYY: String(local.getUTCFullYear()),
    MM: pad(local.getUTCMonth() + 1),
    DD: pad(local.getUTCDate()),
    HH: pad(local.getUTCHours()),
    mm: pad(local.getUTCMinutes()),
    ss: pad(local.getUTCSeconds()),
    SSS: pad(local.getUTCMilliseconds(), 3),
    Z: zone,
  };
  return pattern.replace(/YYYY|SSS|MM|DD|HH|mm|ss|Z/g, (token) => tokens[token] ?? token);
}

/** getTime: `timezone` (offset), `offsetDuration`, `format` → `time`, now shifted by the offset duration. */
export const getTime: SyncBuiltin = ({ incoming }) => {
  const offset = offsetMinutes(incoming.timezone);
  const at = Date.now() + durationMs(incoming.offsetDuration);
  const format = incoming.format === undefined || incoming.format === null ? '' : needString(incoming.format, 'format');
  return success({ time: formatTime(at, offset, format) });
};

function toEpoch(value: unknown, name: string): number {
  const raw = isRecord(value) && 'time' in value ? value.time : value;
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'string' && raw.trim() !== '') {
    const parsed = Date.parse(raw);
    if (!Number.isNaN(parsed)) return parsed;
  }
  throw new TaskInputError(
    `Incoming "${name}" must be a time (ISO 8601 text, epoch milliseconds or { time }), not ${JSON.stringify(value)}`,
  );
}

/** calculateTimeDiff: `firstTime`, `secondTime` → `timeDiff`, secondTime minus firstTime in milliseconds. */
export const calculateTimeDiff: SyncBuiltin = ({ incoming }) =>
  success({ timeDiff: toEpoch(incoming.secondTime, 'secondTime') - toEpoch(incoming.firstTime, 'firstTime') });
