import { assertJsonDepth, exceedsJsonDepth, jsonTextExceedsDepth } from './json-limits';

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { a: value } : [value];
  return value;
}

describe('JSON depth limits', () => {
  it('measures values iteratively, so even 100,000 levels do not overflow the stack', () => {
    expect(exceedsJsonDepth(nested(64), 64)).toBe(false);
    expect(exceedsJsonDepth(nested(65), 64)).toBe(true);
    expect(exceedsJsonDepth(nested(100_000), 64)).toBe(true);
    expect(exceedsJsonDepth('scalar', 0)).toBe(false);
  });

  it('measures text by its brackets outside strings, escapes included', () => {
    const text = (s: string) => Buffer.from(s, 'utf8');
    expect(jsonTextExceedsDepth(text(JSON.stringify(nested(64))), 64)).toBe(false);
    expect(jsonTextExceedsDepth(text(JSON.stringify(nested(65))), 64)).toBe(true);
    expect(jsonTextExceedsDepth(text(JSON.stringify({ s: '[[[[{{{{\\"[[[[' })), 2)).toBe(false);
    expect(jsonTextExceedsDepth(text('{"a":"\\\\"}'), 1)).toBe(false);
  });

  it('throws 400 JSON_TOO_DEEP naming what and the limit', () => {
    expect(() => assertJsonDepth(nested(10), 'options.variables', 5)).toThrow(
      expect.objectContaining({ code: 'JSON_TOO_DEEP', status: 400, message: expect.stringMatching(/options\.variables .*limit of 5/) }),
    );
    expect(() => assertJsonDepth(nested(5), 'options.variables', 5)).not.toThrow();
  });
});
