import { compare } from 'mingo/util';
import { componentEnd, directed, encodeComponent, isExactComponent, maxStringBytes, successor } from './key-codec';

const values: unknown[] = [
  null,
  -Infinity,
  -1e9,
  -2.5,
  -1,
  0,
  1e-9,
  1,
  2,
  2.5,
  1e12,
  Infinity,
  '',
  '\u0000',
  '\u0000a',
  'A',
  'a',
  'a\u0000',
  'a\u0000b',
  'ab',
  'abc',
  'b',
  'é',
  '中文',
  { a: 1 },
  false,
  true,
  new Date(-1000),
  new Date(0),
  new Date(1000),
];

describe('index key components', () => {
  const maxBytes = maxStringBytes(1);

  it('order like mingo compares values, ascending and descending', () => {
    const byBytes = (direction: 1 | -1) =>
      [...values].sort((x, y) =>
        Buffer.compare(directed(encodeComponent(x, maxBytes).bytes, direction), directed(encodeComponent(y, maxBytes).bytes, direction)),
      );
    const expected = [...values].sort(compare);
    expect(byBytes(1)).toEqual(expected);
    expect(byBytes(-1)).toEqual([...expected].reverse());
  });

  it('are prefix-free and self-delimiting in both directions', () => {
    for (const direction of [1, -1] as const) {
      const parts = values.map((v) => directed(encodeComponent(v, maxBytes).bytes, direction));
      const key = Buffer.concat([...parts, Buffer.from('id-1')]);
      let at = 0;
      for (const part of parts) {
        const end = componentEnd(key, at, direction);
        expect(key.subarray(at, end)).toEqual(part);
        at = end;
      }
      expect(key.toString('utf8', at)).toBe('id-1');
      for (const a of parts)
        for (const b of parts) if (a !== b) expect(a.equals(b.subarray(0, a.length)) && a.length < b.length).toBe(false);
    }
  });

  it('cut long strings to a prefix marked inexact that still sorts between its neighbours', () => {
    const long = 'm'.repeat(maxBytes + 50);
    const cut = encodeComponent(long, maxBytes);
    expect(cut.exact).toBe(false);
    expect(isExactComponent(cut.bytes, 0, cut.bytes.length, 1)).toBe(false);
    const short = encodeComponent('m', maxBytes).bytes;
    expect(isExactComponent(short, 0, short.length, 1)).toBe(true);
    const before = encodeComponent('m'.repeat(maxBytes), maxBytes).bytes;
    const after = encodeComponent('n', maxBytes).bytes;
    expect(Buffer.compare(before, cut.bytes)).toBeLessThan(0);
    expect(Buffer.compare(cut.bytes, after)).toBeLessThan(0);
    expect(encodeComponent(`${long}x`, maxBytes).bytes).toEqual(cut.bytes);
  });

  it('write a string as type byte, its UTF-8 (NUL escaped), 0 and an end mark, whichever way it is encoded', () => {
    // short strings without NUL take a one-pass path; the others, the general one: the bytes agree
    const third = Math.floor(maxBytes / 3);
    const strings = ['', 'abc', 'é', '中文', '😀', '\ud800', 'x'.repeat(third), '中'.repeat(third), '中'.repeat(third + 1), 'a\u0000b'];
    for (const value of strings) {
      const raw = Buffer.from(value, 'utf8');
      const fits = raw.length <= maxBytes;
      const kept = fits ? raw : raw.subarray(0, maxBytes);
      const escaped = Buffer.from([...kept].flatMap((byte) => (byte === 0 ? [0, 0xff] : [byte])));
      const expected = Buffer.concat([Buffer.from([0x04]), escaped, Buffer.from([0, fits ? 0x01 : 0x02])]);
      expect({ value, bytes: encodeComponent(value, maxBytes).bytes }).toEqual({ value, bytes: expected });
      expect(encodeComponent(value, maxBytes).exact).toBe(fits);
    }
  });

  it('successor is the least key above every extension', () => {
    expect(successor(Buffer.from([1, 2, 3]))).toEqual(Buffer.from([1, 2, 4]));
    expect(successor(Buffer.from([1, 0xff, 0xff]))).toEqual(Buffer.from([2]));
    expect(successor(Buffer.from([0xff]))).toBeUndefined();
  });
});
