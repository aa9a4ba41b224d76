import { isAppError } from '@nap/contracts';
import { parseVariables, planOf, substitute } from './set-leaf';

function thrown(fn: () => unknown): { code: string; message: string; details?: unknown } {
  try {
    fn();
  } catch (err) {
    if (isAppError(err)) return { code: err.code, message: err.message, details: err.details };
    throw err;
  }
  throw new Error('did not throw');
}

describe('variables of set leaf', () => {
  it('reads one "name value" pair per line: the value is the rest of the line, blank and # lines skipped', () => {
    const vars = parseVariables('dev C-IOS1\r\n\n# a comment\ndesc  customer A uplink  \nempty\n');
    expect([...vars]).toEqual([
      ['dev', 'C-IOS1'],
      ['desc', 'customer A uplink'],
      ['empty', ''],
    ]);
  });

  it('reads name=value when the first word holds the =, and keeps = inside a value otherwise', () => {
    expect([...parseVariables('dev=r1\nvalue = 1\ndesc a=b c')]).toEqual([
      ['dev', 'r1'],
      ['value', '= 1'],
      ['desc', 'a=b c'],
    ]);
  });

  it('reads a JSON object of scalars, and refuses nested values naming the variable', () => {
    expect([...parseVariables('{"dev": "C-IOS1", "lo": 100, "up": true}')]).toEqual([
      ['dev', 'C-IOS1'],
      ['lo', '100'],
      ['up', 'true'],
    ]);
    expect(thrown(() => parseVariables('{"dev": {"name": "x"}}'))).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('"dev"'),
    });
  });

  it('substitutes <!name!> and !name!, leaving other exclamation marks alone', () => {
    const vars = parseVariables('dev C-IOS1\nlo 100');
    expect(substitute('/devices/device{<!dev!>}/config/interface/Loopback{!lo!}/description', vars, 'body.path')).toBe(
      '/devices/device{C-IOS1}/config/interface/Loopback{100}/description',
    );
    expect(substitute('hello! world !', vars, 'body.value')).toBe('hello! world !');
  });

  it('refuses an undefined variable, naming it and where it is used', () => {
    expect(thrown(() => substitute('/d{!nope!}', parseVariables(''), 'body.path'))).toEqual({
      code: 'ORCH_VARIABLE_UNDEFINED',
      message: 'Variable "nope" used in body.path is not defined in body.variables (it defines none)',
      details: [{ member: 'body.path', variable: 'nope', message: 'variable "nope" is not defined in body.variables' }],
    });
  });
});

describe('commit flags of set leaf', () => {
  it.each([
    [
      { dryRun: true, options: 'dryrun' },
      { dryRun: true, staging: false, flags: ['dry-run=cli'] },
    ],
    [
      { dryRun: false, options: 'dryrun' },
      { dryRun: true, staging: false, flags: ['dry-run=cli'] },
    ],
    [
      { dryRun: true, options: 'outformat' },
      { dryRun: true, staging: false, flags: ['dry-run=native'] },
    ],
    [
      { dryRun: false, options: 'outformat' },
      { dryRun: false, staging: false, flags: [] },
    ],
    [
      { dryRun: false, options: 'async' },
      { dryRun: false, staging: false, flags: ['commit-queue=async'] },
    ],
    [
      { dryRun: false, options: 'sync' },
      { dryRun: false, staging: false, flags: ['commit-queue=sync'] },
    ],
    [
      { dryRun: false, options: 'no_overwrite' },
      { dryRun: false, staging: false, flags: ['no-overwrite'] },
    ],
    [
      { dryRun: false, options: 'staging' },
      { dryRun: false, staging: true, flags: [] },
    ],
    [
      { dryRun: true, options: 'staging' },
      { dryRun: true, staging: true, flags: ['dry-run=cli'] },
    ],
  ] as const)('%j → %j', (body, plan) => {
    expect(planOf(body)).toEqual(plan);
  });

  it.each(['async', 'sync', 'no_overwrite'] as const)('refuses a dry run with %s', (options) => {
    expect(thrown(() => planOf({ dryRun: true, options }))).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ member: 'body.options' }],
    });
  });
});
