import { deepFreeze } from './index';

describe('deepFreeze', () => {
  it('freezes an object and everything below it, and answers the same object', () => {
    const value = JSON.parse('{"a":{"b":[1,{"c":"x"}]},"__proto__":{"d":2}}') as Record<string, unknown>;
    expect(deepFreeze(value)).toBe(value);
    const a = value.a as { b: [number, { c: string }] };
    for (const part of [value, a, a.b, a.b[1], Object.getOwnPropertyDescriptor(value, '__proto__')?.value as object]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(() => {
      'use strict';
      a.b[1].c = 'y';
    }).toThrow(TypeError);
  });

  it('leaves values that are not objects as they are', () => {
    expect(deepFreeze(null)).toBeNull();
    expect(deepFreeze('text')).toBe('text');
  });
});
