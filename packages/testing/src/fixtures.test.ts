import { fixturesAbsent, isCi } from './fixtures';

describe('conformance without fixtures', () => {
  const dir = '/nowhere/itential-assets';

  it('fails under CI=true', () => {
    const before = process.env.CI;
    process.env.CI = 'true';
    try {
      expect(() => fixturesAbsent(dir, 'the import')).toThrow(/CONFORMANCE NOT RUN: \/nowhere\/itential-assets is absent[\s\S]*CI=true/);
    } finally {
      if (before === undefined) delete process.env.CI;
      else process.env.CI = before;
    }
  });

  it('warns loudly and passes on a developer machine', () => {
    const before = process.env.CI;
    delete process.env.CI;
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      expect(() => fixturesAbsent(dir, 'the import')).not.toThrow();
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('CONFORMANCE NOT RUN'));
    } finally {
      warn.mockRestore();
      if (before !== undefined) process.env.CI = before;
    }
  });

  it('reads CI as CI systems set it', () => {
    expect(isCi({ CI: 'true' })).toBe(true);
    expect(isCi({ CI: '1' })).toBe(true);
    expect(isCi({ CI: 'false' })).toBe(false);
    expect(isCi({ CI: '' })).toBe(false);
    expect(isCi({})).toBe(false);
  });
});
