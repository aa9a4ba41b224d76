import { changedAfter } from './index';

describe('changedAfter', () => {
  it('is now when the clock has passed the last change', () => {
    expect(changedAfter('2026-12-05T05:00:00.000Z', Date.parse('2026-12-05T05:00:01.000Z'))).toBe('2026-12-05T05:00:01.000Z');
    expect(changedAfter(undefined, Date.parse('2026-12-05T05:00:01.000Z'))).toBe('2026-12-05T05:00:01.000Z');
    expect(changedAfter('not a time', Date.parse('2026-12-05T05:00:01.000Z'))).toBe('2026-12-05T05:00:01.000Z');
  });

  it('is a millisecond after the last change when the clock has not passed it (same millisecond, clock behind)', () => {
    const at = Date.parse('2026-12-05T05:00:00.000Z');
    expect(changedAfter('2026-12-05T05:00:00.000Z', at)).toBe('2026-12-05T05:00:00.001Z');
    expect(changedAfter('2026-12-05T05:00:09.000Z', at)).toBe('2026-12-05T05:00:09.001Z');
  });
});
