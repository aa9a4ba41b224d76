import { CliError, EXIT } from '../src/errors';
import { limitOption } from '../src/limit';

describe('--limit', () => {
  it('is the default when absent, and a whole number up to the most the route answers', () => {
    expect(limitOption(undefined, 25)).toBe(25);
    expect(limitOption('7', 25, 100)).toBe(7);
    expect(limitOption('100', 25, 100)).toBe(100);
    expect(limitOption('100000', 25)).toBe(100000);
  });

  it('is a usage error (exit 4) naming the range otherwise', () => {
    for (const [value, max] of [
      ['0', 100],
      ['101', 100],
      ['2.5', undefined],
      ['ten', undefined],
    ] as const) {
      const error = (() => {
        try {
          limitOption(value, 25, max);
        } catch (err) {
          return err;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(EXIT.USAGE);
      expect((error as CliError).message).toBe(
        `--limit ${value}: expected ${max === undefined ? 'a positive whole number' : 'a whole number from 1 to 100'}`,
      );
    }
  });
});
