import { JOB_STATUSES as CONTRACT_JOB_STATUSES, TASK_STATUSES as CONTRACT_TASK_STATUSES } from '@nap/contracts';
import { JOB_STATUSES, statusesOf, TASK_STATUSES } from '../src/commands/jobs';
import type { Profile } from '../src/config/profiles';
import { credentialsOrigin, settingHint, timeoutOrigin } from '../src/config/profiles';
import { Context } from '../src/context';
import { CliError, EXIT } from '../src/errors';
import { an } from '../src/resources/registry';

/** The parts of nap's messages and output that a pipe cannot show: a terminal's spinner, and the words of messages. */

describe('the spinner', () => {
  /** A terminal that records what is written to it. */
  const terminal = (): NodeJS.WriteStream & { written: string } => {
    const t = { isTTY: true, columns: 80, written: '', write: (s: string) => ((t.written += s), true) };
    return t as unknown as NodeJS.WriteStream & { written: string };
  };

  it('is never started without colours (--no-color, NO_COLOR, TERM=dumb), with --debug or in CI', async () => {
    for (const [env, color, debug] of [
      [{ TERM: 'xterm' }, false, false],
      [{ TERM: 'xterm', NO_COLOR: '1' }, true, false],
      [{ TERM: 'dumb' }, true, false],
      [{ TERM: 'dumb', FORCE_COLOR: '1' }, true, false],
      [{ TERM: 'xterm', CI: 'true' }, true, false],
      [{ TERM: 'xterm' }, true, true],
    ] as const) {
      const stderr = terminal();
      const ctx = new Context({ output: 'human', debug, color }, { stdout: terminal(), stderr, env: { ...env } });
      expect({ env, color, debug, spins: ctx.spins() }).toEqual({ env, color, debug, spins: false });
      expect(await ctx.spin('Listing roles', async () => 'done')).toBe('done');
      expect(stderr.written).toBe('');
    }
    const ctx = new Context(
      { output: 'human', debug: false, color: true },
      { stdout: terminal(), stderr: terminal(), env: { TERM: 'xterm' } },
    );
    expect(ctx.spins()).toBe(true);
  });
});

describe('states', () => {
  it('are those of the contracts', () => {
    expect([...JOB_STATUSES]).toEqual([...CONTRACT_JOB_STATUSES]);
    expect([...TASK_STATUSES]).toEqual([...CONTRACT_TASK_STATUSES]);
  });

  it('are refused by name when unknown, with exit 4', () => {
    expect(statusesOf('complete, error,complete', JOB_STATUSES, 'job')).toEqual(['complete', 'error']);
    for (const [text, message] of [
      ['bogus', '--status bogus: "bogus" is not a job state; the states: running, paused, complete, error, canceled'],
      ['a,complete,b', '--status a,complete,b: "a", "b" are not a job state; the states: running, paused, complete, error, canceled'],
      [',', '--status ,: no state named; the states: running, paused, complete, error, canceled'],
    ] as const) {
      let error: unknown;
      try {
        statusesOf(text, JOB_STATUSES, 'job');
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(CliError);
      expect({ text, code: (error as CliError).exitCode, message: (error as CliError).message }).toEqual({
        text,
        code: EXIT.USAGE,
        message,
      });
    }
  });
});

describe('messages about the profile', () => {
  const environment: Profile = {
    name: 'environment',
    source: 'environment',
    baseUrl: 'https://nap.example.net',
    verify: true,
    timeoutMs: 30_000,
    token: 'x',
    variables: { url: 'NAP_URL', token: 'NAP_TOKEN' },
  };
  const lab: Profile = {
    name: 'lab',
    source: '/home/x/.config/nap/config',
    baseUrl: 'https://lab',
    verify: true,
    timeoutMs: 1000,
    username: 'u',
    password: 'p',
  };

  it('name the variable where the environment set it, else the profile', () => {
    expect(settingHint(environment, 'verify', 'false', 'NAP_VERIFY')).toBe('set NAP_VERIFY=false');
    expect(settingHint(lab, 'verify', 'false', 'NAP_VERIFY')).toBe('add verify = false to profile "lab"');
    expect(settingHint({ ...lab, variables: { verify: 'NAP_VERIFY' } }, 'verify', 'false', 'NAP_VERIFY')).toBe('set NAP_VERIFY=false');
    expect(credentialsOrigin(environment)).toBe('NAP_TOKEN');
    expect(credentialsOrigin(lab)).toBe('profile "lab"');
    expect(credentialsOrigin({ ...lab, variables: { username: 'NAP_USERNAME', password: 'NAP_PASSWORD' } })).toBe(
      'NAP_USERNAME and NAP_PASSWORD',
    );
    expect(timeoutOrigin(environment)).toBe('the default timeout (NAP_TIMEOUT sets another)');
    expect(timeoutOrigin(lab)).toBe('the timeout of profile "lab"');
  });

  it('say a or an', () => {
    expect(an('integration-model')).toBe('an integration-model');
    expect(an('workflow')).toBe('a workflow');
  });
});
