/**
 * Times as people type them in the console's filters, in the form the console writes times
 * (`2026-12-05 10:12:16`, on the engineer's clock): read into the value a filter keeps in the URL
 * (`2026-12-05T10:12`, as a `datetime-local` field wrote it, so that links made before still work),
 * and back.
 */

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

/** The form a time is typed in, as the field's placeholder and its problems say it. */
export const TIME_FORMAT = 'YYYY-MM-DD HH:MM';
const EXAMPLE = '2026-12-05 10:12';

const pad = (n: number) => String(n).padStart(2, '0');

/** What was typed, read: the URL's value (`''` when nothing was typed), or what is wrong with it. */
export type ReadTime = { value: string } | { problem: string };

function daysIn(year: number, month: number): number {
  return new Date(year, month, 0).getDate();
}

/**
 * Reads a typed time: `YYYY-MM-DD HH:MM`, with seconds or without a time of day (midnight), a `T`
 * in place of the space (the URL's form) also read. The problem names what is wrong (the form, or
 * the month, day, hour, minute or second that does not exist).
 */
export function readTime(typed: string): ReadTime {
  const text = typed.trim();
  if (text === '') return { value: '' };
  const found = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:\s+|T)(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(text);
  if (!found) return { problem: `“${text}” is not a time: write it as ${TIME_FORMAT}, e.g. ${EXAMPLE}.` };
  const [year, month, day, hour, minute, second] = found.slice(1).map((part) => (part === undefined ? 0 : Number(part))) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12) return { problem: `“${text}” is not a time: there is no month ${pad(month)} (months go from 01 to 12).` };
  const days = daysIn(year, month);
  if (day < 1 || day > days)
    return { problem: `“${text}” is not a time: ${MONTHS[month - 1] ?? ''} ${year} has days 01 to ${days}, not ${pad(day)}.` };
  if (hour > 23) return { problem: `“${text}” is not a time: hours go from 00 to 23, not ${pad(hour)}.` };
  if (minute > 59) return { problem: `“${text}” is not a time: minutes go from 00 to 59, not ${pad(minute)}.` };
  if (second > 59) return { problem: `“${text}” is not a time: seconds go from 00 to 59, not ${pad(second)}.` };
  const date = `${year}-${pad(month)}-${pad(day)}`;
  return { value: `${date}T${pad(hour)}:${pad(minute)}${found[6] !== undefined ? `:${pad(second)}` : ''}` };
}

/** A URL's value as the field shows it (`2026-12-05T10:12` → `2026-12-05 10:12`); an unreadable one as it is. */
export function timeText(value: string): string {
  return value.replace(/^(\d{4}-\d{2}-\d{2})T/, '$1 ');
}
