import { readTime, timeText } from '../src/api/console-time';

/** Times typed in the console's filters, as the console writes them (`2026-12-05 10:12:16`), read into the URL's form and back. */

describe('readTime', () => {
  it('reads a time as the console writes it, with or without seconds, a date alone as its midnight', () => {
    expect(readTime('2026-12-05 10:12')).toEqual({ value: '2026-12-05T10:12' });
    expect(readTime(' 2026-12-05 10:12:16 ')).toEqual({ value: '2026-12-05T10:12:16' });
    expect(readTime('2026-12-05')).toEqual({ value: '2026-12-05T00:00' });
    // the URL's form, and a time of day without its leading zero
    expect(readTime('2026-12-05T10:12')).toEqual({ value: '2026-12-05T10:12' });
    expect(readTime('2026-2-5 9:05')).toEqual({ value: '2026-02-05T09:05' });
    expect(readTime('2028-02-29 23:59:59')).toEqual({ value: '2028-02-29T23:59:59' });
    expect(readTime('')).toEqual({ value: '' });
    expect(readTime('   ')).toEqual({ value: '' });
  });

  it('says what is wrong with text that is not a time: the form, or the part that does not exist', () => {
    expect(readTime('12/05/2026')).toEqual({ problem: '“12/05/2026” is not a time: write it as YYYY-MM-DD HH:MM, e.g. 2026-12-05 10:12.' });
    expect(readTime('yesterday')).toEqual({ problem: '“yesterday” is not a time: write it as YYYY-MM-DD HH:MM, e.g. 2026-12-05 10:12.' });
    expect(readTime('2026-13-05 10:12')).toEqual({
      problem: '“2026-13-05 10:12” is not a time: there is no month 13 (months go from 01 to 12).',
    });
    expect(readTime('2026-00-05')).toEqual({ problem: '“2026-00-05” is not a time: there is no month 00 (months go from 01 to 12).' });
    expect(readTime('2026-02-29')).toEqual({ problem: '“2026-02-29” is not a time: February 2026 has days 01 to 28, not 29.' });
    expect(readTime('2026-04-31 08:00')).toEqual({
      problem: '“2026-04-31 08:00” is not a time: April 2026 has days 01 to 30, not 31.',
    });
    expect(readTime('2026-12-05 24:00')).toEqual({ problem: '“2026-12-05 24:00” is not a time: hours go from 00 to 23, not 24.' });
    expect(readTime('2026-12-05 10:60')).toEqual({ problem: '“2026-12-05 10:60” is not a time: minutes go from 00 to 59, not 60.' });
    expect(readTime('2026-12-05 10:12:61')).toEqual({
      problem: '“2026-12-05 10:12:61” is not a time: seconds go from 00 to 59, not 61.',
    });
  });
});

describe('timeText', () => {
  it('shows a URL’s value as the console writes times, and anything else as it is', () => {
    expect(timeText('2026-12-05T10:12')).toBe('2026-12-05 10:12');
    expect(timeText('2026-12-05T10:12:16')).toBe('2026-12-05 10:12:16');
    expect(timeText('')).toBe('');
    expect(timeText('soon')).toBe('soon');
  });
});
