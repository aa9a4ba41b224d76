import { cloneJson } from '../src/domain/builtins/types';

// cloneJson walks objects instead of going through text: it must answer what the text would.
describe('cloneJson', () => {
  const viaText = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

  it.each<[string, unknown]>([
    ['nested data', { a: [1, 'two', { three: [null, true] }], b: { c: { d: 'e' } } }],
    ['members JSON drops', { keep: 1, undef: undefined, fn: () => 1, sym: Symbol('s') }],
    ['array elements JSON nulls', [undefined, () => 1, Symbol('s'), 1]],
    ['numbers JSON cannot carry', { nan: Number.NaN, inf: Number.POSITIVE_INFINITY, negZero: -0 }],
    ['a date, and values with toJSON', { when: new Date(0), custom: { toJSON: () => ({ as: 'json' }) } }],
    ['a class instance and boxed values', { map: new Map([[1, 2]]), boxed: Object('text') as unknown, set: new Set([1]) }],
    ['a __proto__ member', JSON.parse('{"__proto__":{"polluted":true},"a":1}') as unknown],
    ['an object without prototype', Object.assign(Object.create(null) as object, { a: { b: 1 } })],
    ['a top-level date', new Date(86_400_000)],
    ['a top-level scalar', 'text'],
  ])('copies %s as JSON text would', (_, value) => {
    const copy = cloneJson(value);
    expect(copy).toStrictEqual(viaText(value));
    expect(JSON.stringify(copy)).toBe(JSON.stringify(viaText(value)));
  });

  it('makes new objects all the way down, and never sets a prototype', () => {
    const value = { a: { b: [{ c: 1 }] } };
    const copy = cloneJson(value);
    copy.a.b[0]!.c = 2;
    expect(value.a.b[0]?.c).toBe(1);
    const parsed = cloneJson(JSON.parse('{"__proto__":{"polluted":true}}') as Record<string, unknown>);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect((parsed as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.keys(parsed)).toEqual(['__proto__']);
  });

  it('fails where JSON fails', () => {
    expect(() => cloneJson({ big: 10n })).toThrow(TypeError);
    expect(cloneJson(undefined)).toBeUndefined();
  });
});
