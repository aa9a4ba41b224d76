import { RecentMap } from './index';

describe('RecentMap', () => {
  it('forgets the least recently set entries beyond its limit; setting a key again makes it the most recent', () => {
    const recent = new RecentMap<string, number>(2);
    recent.set('a', 1);
    recent.set('b', 2);
    recent.set('a', 3);
    recent.set('c', 4);
    expect(recent.has('b')).toBe(false);
    expect(recent.get('a')).toBe(3);
    expect(recent.get('c')).toBe(4);
    expect(recent.size).toBe(2);
    recent.delete('a');
    expect(recent.get('a')).toBeUndefined();
    recent.clear();
    expect(recent.size).toBe(0);
  });
});
