import { merged } from './index';

describe('merged', () => {
  it('is what a spread of both makes: later members win, order kept, neither argument changed', () => {
    const base = { a: 1, b: 2 };
    const members = { b: 3, c: 4 };
    const out = merged(base, members);
    expect(out).toEqual({ ...base, ...members });
    expect(Object.keys(out)).toEqual(['a', 'b', 'c']);
    expect(base).toEqual({ a: 1, b: 2 });
    expect(members).toEqual({ b: 3, c: 4 });
    expect(merged(undefined, { x: 1 })).toEqual({ x: 1 });
  });

  it('keeps an own __proto__ member as a member, never as the prototype', () => {
    const fromJson = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    for (const out of [merged(fromJson, { b: 2 }), merged({ b: 2 }, fromJson)]) {
      expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
      expect(Object.hasOwn(out, '__proto__')).toBe(true);
      expect((out as { polluted?: boolean }).polluted).toBeUndefined();
    }
  });
});
