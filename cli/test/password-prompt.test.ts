import { EventEmitter } from 'node:events';
import { askPasswords, changeFailure, passwordsFromText } from '../src/commands/password';
import { replaceProfileKey } from '../src/config/profile-file';
import type { Profile } from '../src/config/profiles';
import { CliError, EXIT } from '../src/errors';
import { Client } from '../src/http/client';
import type { TokenCache } from '../src/http/token-cache';
import { PromptInterrupted, createSecretPrompt } from '../src/secret-prompt';

/**
 * The parts of `nap password` a test cannot reach through a pipe: the prompt on a terminal (no
 * pseudo-terminal here), driven with a scripted terminal that answers each question as it appears,
 * and the rewriting of a config file's line and the messages of refusals, as pure functions.
 */

/** A terminal in a test: raw mode and pauses recorded, keys typed as chunks of bytes. */
class ScriptedTerminal extends EventEmitter {
  readonly rawModes: boolean[] = [];
  paused = true;
  /** Everything written to the terminal (the prompts, and the line ends of answered ones). */
  shown = '';
  private readonly answers: (string | Buffer)[];

  constructor(answers: (string | Buffer)[] = []) {
    super();
    this.answers = [...answers];
  }

  setRawMode(raw: boolean): this {
    this.rawModes.push(raw);
    return this;
  }

  resume(): this {
    this.paused = false;
    return this;
  }

  pause(): this {
    this.paused = true;
    return this;
  }

  type(keys: string | Buffer): void {
    this.emit('data', keys);
  }

  /** The terminal's output: a question is answered with the next scripted keys, as a person would. */
  readonly output = {
    write: (text: string): boolean => {
      this.shown += text;
      const next = text.endsWith(': ') ? this.answers.shift() : undefined;
      if (next !== undefined) setImmediate(() => this.type(next));
      return true;
    },
  };
}

function refusal(err: unknown): { exitCode: number; message: string } {
  expect(err).toBeInstanceOf(CliError);
  return { exitCode: (err as CliError).exitCode, message: (err as CliError).message };
}

describe('the terminal prompt', () => {
  it('asks the three questions, echoes nothing, and gives the terminal back', async () => {
    const terminal = new ScriptedTerminal(['old-password\r', 'new-password-1\r', 'new-password-1\r']);
    const prompt = createSecretPrompt(terminal, terminal.output);
    expect(terminal.rawModes).toEqual([true]);
    expect(terminal.paused).toBe(false);
    const change = await askPasswords(prompt);
    prompt.close();
    expect(change).toEqual({ currentPassword: 'old-password', newPassword: 'new-password-1' });
    expect(terminal.shown).toBe('Current password: \nNew password: \nRetype the new password: \n');
    expect(terminal.rawModes).toEqual([true, false]);
    expect(terminal.paused).toBe(true);
    expect(terminal.listenerCount('data')).toBe(0);
  });

  it('refuses a repetition that differs, after the third question', async () => {
    const terminal = new ScriptedTerminal(['old-password\r', 'new-password-1\r', 'new-password-2\r']);
    const prompt = createSecretPrompt(terminal, terminal.output);
    const err = await askPasswords(prompt).catch((e: unknown) => e);
    prompt.close();
    expect(refusal(err)).toEqual({
      exitCode: EXIT.USAGE,
      message: 'the new password and its repetition differ; the password is unchanged',
    });
    expect(terminal.shown).not.toContain('new-password');
  });

  it('stops at an empty current password without asking further', async () => {
    const terminal = new ScriptedTerminal(['\r', 'never-asked-1\r']);
    const prompt = createSecretPrompt(terminal, terminal.output);
    const err = await askPasswords(prompt).catch((e: unknown) => e);
    prompt.close();
    expect(refusal(err)).toEqual({ exitCode: EXIT.USAGE, message: 'the current password is empty; the password is unchanged' });
    expect(terminal.shown).toBe('Current password: \n');
  });

  it('edits the line as a terminal does: Backspace, Ctrl-U, arrows and paste marks ignored, \\r\\n as one end', async () => {
    const terminal = new ScriptedTerminal();
    const prompt = createSecretPrompt(terminal, terminal.output);
    const first = prompt.ask('First: ');
    terminal.type('abx\u007fc\u001b[D\u001b[200~d\u001b[201~\r\n');
    expect(await first).toBe('abcd');
    const second = prompt.ask('Second: ');
    terminal.type('thrown away\u0015kept\tword\bd\n');
    expect(await second).toBe('keptword');
    prompt.close();
  });

  it('keeps what was typed ahead for the next questions, and reads UTF-8 split across chunks', async () => {
    const terminal = new ScriptedTerminal();
    const prompt = createSecretPrompt(terminal, terminal.output);
    const bytes = Buffer.from('pässwörd-1\rsecond\r', 'utf8');
    // the ä cut in the middle of its two bytes
    terminal.type(bytes.subarray(0, 2));
    terminal.type(bytes.subarray(2));
    expect(await prompt.ask('One: ')).toBe('pässwörd-1');
    expect(await prompt.ask('Two: ')).toBe('second');
    // Ctrl-D ends a line as Enter does
    const third = prompt.ask('Three: ');
    terminal.type('third\u0004');
    expect(await third).toBe('third');
    prompt.close();
    expect(terminal.shown).toBe('One: \nTwo: \nThree: \n');
  });

  it('rejects on Ctrl-C, and every question after it', async () => {
    const terminal = new ScriptedTerminal(['half-typ\u0003']);
    const prompt = createSecretPrompt(terminal, terminal.output);
    await expect(askPasswords(prompt)).rejects.toBeInstanceOf(PromptInterrupted);
    await expect(prompt.ask('Again: ')).rejects.toBeInstanceOf(PromptInterrupted);
    prompt.close();
    prompt.close();
    expect(terminal.shown).toBe('Current password: ^C\n');
    expect(terminal.rawModes).toEqual([true, false]);
  });
});

describe('--password-stdin', () => {
  it('reads the current and the new password, one a line, and an optional repetition', () => {
    expect(passwordsFromText('old-password\nnew-password-1\n')).toEqual({ currentPassword: 'old-password', newPassword: 'new-password-1' });
    expect(passwordsFromText('old-password\r\nnew-password-1\r\nnew-password-1\r\n\n')).toEqual({
      currentPassword: 'old-password',
      newPassword: 'new-password-1',
    });
    // spaces are part of a password
    expect(passwordsFromText(' old password \n new password ')).toEqual({
      currentPassword: ' old password ',
      newPassword: ' new password ',
    });
  });

  it('refuses what cannot be a change, before anything is sent', () => {
    for (const [text, message] of [
      [
        '',
        '--password-stdin reads the current password on a line, then the new one (and, optionally, the new one again); stdin held 0 lines',
      ],
      ['old\nnew-1\nnew-2\n', 'the new password and its repetition differ; the password is unchanged'],
      [
        'old\n\n\n',
        '--password-stdin reads the current password on a line, then the new one (and, optionally, the new one again); stdin held 1 line',
      ],
      ['old\n\nnew\n', 'the new password is empty; the password is unchanged'],
      ['same\nsame\n', 'the new password is the same as the current one; the password is unchanged'],
    ] as const) {
      let err: unknown;
      try {
        passwordsFromText(text);
      } catch (e) {
        err = e;
      }
      expect({ text, ...refusal(err) }).toEqual({ text, exitCode: EXIT.USAGE, message });
    }
  });
});

describe('the profile line nap rewrites', () => {
  const text = [
    '; my profiles',
    '[profile default]',
    'password = default-password',
    '',
    '[profile lab]',
    'host = lab.example.net   ; the lab',
    '  password=old-password',
    'username = netops',
    '',
    '[profile labs]',
    'password = other-password',
    '',
  ].join('\n');

  it("changes only the key of that profile, keeping every other line and the key's own spacing", () => {
    expect(replaceProfileKey(text, 'lab', 'password', 'new-password-1')).toBe(
      text.replace('  password=old-password', '  password=new-password-1'),
    );
    expect(replaceProfileKey(text.replace(/\n/g, '\r\n'), 'lab', 'password', 'new-password-1')).toBe(
      text.replace('  password=old-password', '  password=new-password-1').replace(/\n/g, '\r\n'),
    );
  });

  it('writes a value the INI reader would cut or trim so that it reads back whole', () => {
    for (const value of ['semi;colon#hash', ' spaces around ', 'equals=sign', '"quoted"', '[bracket']) {
      const next = replaceProfileKey(text, 'lab', 'password', value);
      expect({ value, written: next !== undefined }).toEqual({ value, written: true });
    }
    // a value it cannot write so (a backslash before ;): nothing, rather than a wrong password
    expect(replaceProfileKey(text, 'lab', 'password', 'back\\;slash')).toBeUndefined();
  });

  it('keeps a comment after the value and the end of the last line', () => {
    const commented = '[profile dave]\n; the password below rotates monthly\npassword = dave-pass-000000   ; rotated 2026-12\n';
    expect(replaceProfileKey(commented, 'dave', 'password', 'dave-pass-111111')).toBe(
      '[profile dave]\n; the password below rotates monthly\npassword = dave-pass-111111   ; rotated 2026-12\n',
    );
    expect(replaceProfileKey(commented.replace(/\n/g, '\r\n'), 'dave', 'password', 'dave-pass-111111')).toBe(
      '[profile dave]\r\n; the password below rotates monthly\r\npassword = dave-pass-111111   ; rotated 2026-12\r\n',
    );
    // an escaped # is the value's, the first one not escaped begins the comment
    expect(replaceProfileKey('[profile dave]\npassword = old\\#hash # note', 'dave', 'password', 'new-password-2')).toBe(
      '[profile dave]\npassword = new-password-2 # note',
    );
    // a value that needs escaping keeps the comment too, and reads back whole
    expect(replaceProfileKey(commented, 'dave', 'password', 'semi;colon')).toBe(
      '[profile dave]\n; the password below rotates monthly\npassword = semi\\;colon   ; rotated 2026-12\n',
    );
  });

  it('answers nothing for a profile or key the text does not hold', () => {
    expect(replaceProfileKey(text, 'missing', 'password', 'x-password-1')).toBeUndefined();
    expect(replaceProfileKey(text, 'lab', 'client_secret', 'x-password-1')).toBeUndefined();
  });
});

describe('the messages of a refused change', () => {
  const profile: Profile = { name: 'default', source: 'test', baseUrl: 'https://nap.example.net', verify: true, timeoutMs: 1000 };
  const cache: TokenCache = { get: () => undefined, set: () => undefined, delete: () => undefined };
  const client = new Client(profile, { enabled: false, log: () => undefined }, cache);
  const req = { method: 'PUT', path: '/whoami/password' } as const;
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers: new Headers(headers), body });

  it('names the wait of a throttled account or address, from Retry-After', () => {
    const throttled = changeFailure(
      client,
      req,
      answer(
        429,
        { code: 'LOGIN_THROTTLED', message: 'Too many', details: { retryAfterSeconds: 900, scope: 'address' } },
        { 'retry-after': '900' },
      ),
      'netops',
    );
    expect(refusal(throttled)).toEqual({
      exitCode: EXIT.AUTH,
      message:
        'too many failed logins from this address: try again in 15 minutes, or ask an administrator to unlock the account; the password is unchanged (429 LOGIN_THROTTLED)',
    });
    const noHeader = changeFailure(
      client,
      req,
      answer(429, { code: 'LOGIN_THROTTLED', message: 'Too many', details: { retryAfterSeconds: 1, scope: 'account' } }),
    );
    expect(refusal(noHeader).message).toMatch(/^too many failed logins: try again in 1 second, /);
  });

  it("gives the platform's word for an account of an external sign-in method, and the usual message otherwise", () => {
    const external = changeFailure(
      client,
      req,
      answer(422, {
        code: 'UNPROCESSABLE',
        message: 'Account "erin" signs in with sign-in method "corp": change the password there, not in NAP',
      }),
    );
    expect(refusal(external)).toEqual({
      exitCode: EXIT.FAILED,
      message:
        'Account "erin" signs in with sign-in method "corp": change the password there, not in NAP; the password is unchanged (422 UNPROCESSABLE)',
    });
    const forbidden = changeFailure(client, req, answer(403, { code: 'FORBIDDEN', message: 'No role allows it' }));
    expect(refusal(forbidden)).toEqual({
      exitCode: EXIT.AUTH,
      message: 'PUT /whoami/password: not allowed (403 FORBIDDEN: No role allows it)',
    });
  });
});
