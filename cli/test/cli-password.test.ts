import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  LDAP_SERVICE_DN,
  LDAP_SERVICE_PASSWORD,
  LDAP_SUFFIX,
  SLAPD,
  loadDirectory,
  serverPresent,
  startSlapd,
} from '../../test/support/directory-servers';
import type { Slapd } from '../../test/support/directory-servers';
import type { NapHome, NapResult } from './support/nap';
import { createHome, nap, napInProcess } from './support/nap';
import type { Platform } from './support/platform';
import { startPlatform } from './support/platform';

/**
 * `nap password`: a person changes their own password (`PUT /whoami/password`), the passwords
 * given on stdin (the terminal prompt is tested as a unit in password-prompt.test.ts). Each test
 * owns an account of its own, so that the failed logins one counts do not throttle another. The
 * commands run in this process, stdin a stream; the change itself runs the bin, its stdin a pipe.
 */
let platform: Platform;
const homes: NapHome[] = [];
/** Every password a test used: none may appear in anything nap printed. */
const secrets = new Set<string>();
const printed: NapResult[] = [];

function home(): NapHome {
  const h = createHome();
  homes.push(h);
  return h;
}

async function run(
  args: string[],
  opts: { env: NodeJS.ProcessEnv; input?: string; terminal?: boolean; ownProcess?: boolean },
): Promise<NapResult> {
  const res = await (opts.ownProcess === true ? nap(args, opts) : napInProcess(args, opts));
  printed.push(res);
  return res;
}

/** Lines for `--password-stdin`. */
function lines(...passwords: string[]): string {
  for (const p of passwords) secrets.add(p);
  return passwords.map((p) => `${p}\n`).join('');
}

function section(name: string, port: number, username: string, password: string, extra = ''): string {
  return `[profile ${name}]\nhost = 127.0.0.1\nport = ${port}\nuse_tls = false\nusername = ${username}\npassword = ${password}\n${extra}`;
}

async function login(username: string, password: string, url = platform.url): Promise<Response> {
  return fetch(`${url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: { username, password } }),
  });
}

async function tokenOf(username: string, password: string): Promise<string> {
  const res = await login(username, password);
  expect(res.status).toBe(200);
  return (await res.text()).replace(/^"|"$/g, '');
}

async function whoamiStatus(token: string): Promise<number> {
  return (await fetch(`${platform.url}/whoami`, { headers: { authorization: `Bearer ${token}` } })).status;
}

let groupId: string;

/** A local account in a group with the operations role, for one test. */
async function account(username: string, password: string): Promise<void> {
  secrets.add(password);
  const admin = await tokenOf('admin', platform.password);
  const res = await fetch(`${platform.url}/user-management/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
    body: JSON.stringify({ account: { username, password, groups: [groupId] } }),
  });
  expect(res.ok).toBe(true);
}

beforeAll(async () => {
  platform = await startPlatform('password-admin-password');
  const admin = await tokenOf('admin', platform.password);
  const res = await fetch(`${platform.url}/user-management/groups`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
    body: JSON.stringify({ group: { name: 'password-people', roles: ['operations'] } }),
  });
  groupId = ((await res.json()) as { data: { _id: string } }).data._id;
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  for (const h of homes) rmSync(h.home, { recursive: true, force: true });
});

describe('nap password', () => {
  it('refuses a mismatch, an empty or unchanged password, stdin of the wrong shape and a missing terminal, without calling the platform', async () => {
    await account('pw-refused', 'refused-password-1');
    const h = home();
    h.writeNapConfig(section('default', platform.port, 'pw-refused', 'refused-password-1'));
    const cases: [string, string][] = [
      [
        lines('refused-password-1', 'refused-new-password', 'refused-new-passwort'),
        'nap: the new password and its repetition differ; the password is unchanged\n',
      ],
      [lines('', 'refused-new-password'), 'nap: the current password is empty; the password is unchanged\n'],
      [
        lines('refused-password-1', 'refused-password-1'),
        'nap: the new password is the same as the current one; the password is unchanged\n',
      ],
      [
        lines('refused-password-1'),
        'nap: --password-stdin reads the current password on a line, then the new one (and, optionally, the new one again); stdin held 1 line\n',
      ],
      [
        lines('a-password-1', 'b-password-2', 'b-password-2', 'b-password-2'),
        'nap: --password-stdin reads the current password on a line, then the new one (and, optionally, the new one again); stdin held 4 lines\n',
      ],
      // a pipe closed with nothing in it
      [
        '',
        'nap: --password-stdin reads the current password on a line, then the new one (and, optionally, the new one again); stdin held 0 lines\n',
      ],
    ];
    for (const [input, message] of cases) {
      const res = await run(['password', '--password-stdin', '--debug'], { env: h.env, input });
      // --debug prints every request: there is none
      expect({ input, code: res.code, stdout: res.stdout, stderr: res.stderr }).toEqual({ input, code: 4, stdout: '', stderr: message });
    }
    // --password-stdin reads a pipe or a file: on a terminal it says to leave it out, rather than wait for Ctrl-D
    expect(await run(['password', '--password-stdin', '--debug'], { env: h.env, terminal: true })).toMatchObject({
      code: 4,
      stdout: '',
      stderr: 'nap: --password-stdin reads a pipe or a file, not a terminal: leave it out to be asked\n',
    });
    // without --password-stdin, nap asks only on a terminal: a pipe is not one
    const noTerminal = await run(['password', '--debug'], { env: h.env, input: lines('refused-password-1', 'refused-new-password') });
    expect(noTerminal).toMatchObject({
      code: 4,
      stderr:
        'nap: stdin is not a terminal, so nap cannot ask for the passwords: give them with --password-stdin (the current password on a line, then the new one)\n',
    });
    expect((await login('pw-refused', 'refused-password-1')).status).toBe(200);
  });

  it('says a wrong current password is wrong (exit 5) and which rule a new one breaks (exit 1); the password stays', async () => {
    await account('pw-rules', 'rules-password-1');
    const h = home();
    h.writeNapConfig(section('default', platform.port, 'pw-rules', 'rules-password-1'));
    const wrong = await run(['password', '--password-stdin'], { env: h.env, input: lines('not-the-password', 'rules-new-password') });
    expect(wrong).toMatchObject({
      code: 5,
      stdout: '',
      stderr:
        'nap: the current password of "pw-rules" is wrong; the password is unchanged (403 CURRENT_PASSWORD_WRONG; a wrong current password counts as a failed login, and after a few in a row logins wait)\n',
    });
    // shorter than the profile's rules (12 by default) ...
    const short = await run(['password', '--password-stdin'], { env: h.env, input: lines('rules-password-1', 'short-pw1') });
    expect(short).toMatchObject({
      code: 1,
      stdout: '',
      stderr:
        "nap: the new password breaks the platform's password rules: it is 9 characters long; at least 12 are needed; the password is unchanged (400 VALIDATION_FAILED)\n",
    });
    // ... however short: the profile's rule judges its length (the platform's schema takes any non-empty password)
    const tiny = await run(['password', '--password-stdin'], { env: h.env, input: lines('rules-password-1', 'tiny') });
    expect(tiny).toMatchObject({
      code: 1,
      stderr:
        "nap: the new password breaks the platform's password rules: it is 4 characters long; at least 12 are needed; the password is unchanged (400 VALIDATION_FAILED)\n",
    });
    expect((await login('pw-rules', 'rules-password-1')).status).toBe(200);
  });

  it('changes the password: this session goes on, the other sessions end, the new password logs in and the old one not, and the profile in NAP’s file follows', async () => {
    await account('pw-main', 'main-password-old');
    const h = home();
    const config = path.join(h.home, '.config', 'nap', 'config');
    h.writeNapConfig(
      `[application]\ndefault_profile = work\n\n; the account of the lab\n${section('work', platform.port, 'pw-main', 'main-password-old', 'timeout = 20 ; seconds\n')}\n${section('other', 1, 'someone', 'untouched-password')}`,
    );
    chmodSync(config, 0o600);
    const before = readFileSync(config, 'utf8');
    // nap's session, and one of elsewhere (a browser, another machine)
    expect((await run(['api', 'get', '/whoami'], { env: h.env })).code).toBe(0);
    const elsewhere = await tokenOf('pw-main', 'main-password-old');

    // the bin itself, reading a real pipe
    const changed = await run(['password', '--password-stdin', '--debug'], {
      env: h.env,
      input: lines('main-password-old', 'main-password-new', 'main-password-new'),
      ownProcess: true,
    });
    expect(changed.code).toBe(0);
    expect(changed.stdout).toBe('Password of "pw-main" changed; its other sessions are ended, this one goes on\n');
    expect(changed.stderr).toMatch(
      /^curl -X PUT 'http:\/\/127\.0\.0\.1:\d+\/whoami\/password' .* -d '\{"currentPassword":"\*\*\*\*","newPassword":"\*\*\*\*"\}'$/m,
    );
    expect(changed.stderr).not.toContain('/login');
    expect(changed.stderr).toMatch(
      new RegExp(`^updated the password of profile "work" in ${config.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'),
    );

    // the profile's password changed in place: every other line as it was, the file still only its owner's to read
    expect(readFileSync(config, 'utf8')).toBe(before.replace('password = main-password-old', 'password = main-password-new'));
    expect(statSync(config).mode & 0o777).toBe(0o600);

    expect(await whoamiStatus(elsewhere)).toBe(401);
    // nap goes on with its session, found again under the profile's new password: no login
    const after = await run(['api', 'get', '/whoami', '-o', 'json', '--debug'], { env: h.env });
    expect(after.code).toBe(0);
    expect(after.json()).toMatchObject({ username: 'pw-main' });
    expect(after.stderr).not.toContain('/login');

    const fresh = { ...home().env, NAP_URL: platform.url, NAP_USERNAME: 'pw-main' };
    expect((await run(['api', 'get', '/whoami'], { env: { ...fresh, NAP_PASSWORD: 'main-password-new' } })).code).toBe(0);
    const old = await run(['api', 'get', '/whoami'], { env: { ...fresh, NAP_PASSWORD: 'main-password-old' } });
    expect(old.code).toBe(5);
    expect(old.stderr).toMatch(/refused the credentials of user "pw-main"/);
  });

  it('never writes the new password where others may read it: a config file of mode 0644 becomes 0600, and nap says so', async () => {
    await account('pw-mode', 'mode-password-old');
    const h = home();
    const config = path.join(h.home, '.config', 'nap', 'config');
    h.writeNapConfig(section('work', platform.port, 'pw-mode', 'mode-password-old'));
    chmodSync(config, 0o644);
    const res = await run(['password', '--password-stdin', '--profile', 'work'], {
      env: h.env,
      input: lines('mode-password-old', 'mode-password-new'),
    });
    expect(res.code).toBe(0);
    expect(res.stderr).toBe(
      `updated the password of profile "work" in ${config}, which others could read (mode 0644): it is now 0600, only yours\n`,
    );
    expect(statSync(config).mode & 0o777).toBe(0o600);
    expect(readFileSync(config, 'utf8')).toContain('password = mode-password-new');
  });

  it('leaves a password a profile inherits from [profile default] where it is (other profiles share it), and says so', async () => {
    await account('pw-inherit', 'inherit-password-1');
    const h = home();
    const config = path.join(h.home, '.config', 'nap', 'config');
    h.writeNapConfig(`${section('default', platform.port, 'pw-inherit', 'inherit-password-1')}\n[profile work]\nport = ${platform.port}\n`);
    const before = readFileSync(config, 'utf8');
    const res = await run(['password', '--password-stdin', '--profile', 'work'], {
      env: h.env,
      input: lines('inherit-password-1', 'inherit-password-2'),
    });
    expect(res).toMatchObject({
      code: 0,
      stderr: `note: the old password is still in ${config}, key password of [profile default], which profile "work" inherits and other profiles may share: change it there\n`,
    });
    expect(readFileSync(config, 'utf8')).toBe(before);
    expect((await login('pw-inherit', 'inherit-password-2')).status).toBe(200);
  });

  it('leaves a password kept in ipctl’s file or the environment as it is, and says what to change', async () => {
    await account('pw-notes', 'notes-password-1');
    const h = home();
    const ipctlFile = path.join(h.home, '.platform.d', 'config');
    h.writeIpctlConfig(section('lab', platform.port, 'pw-notes', 'notes-password-1'));
    const ipctlBefore = readFileSync(ipctlFile, 'utf8');
    const fromIpctl = await run(['password', '--password-stdin', '--profile', 'lab', '-o', 'json'], {
      env: h.env,
      input: lines('notes-password-1', 'notes-password-2'),
    });
    expect(fromIpctl.code).toBe(0);
    // -o json: the platform's answer as it is; the note on stderr
    expect(fromIpctl.json()).toEqual({
      status: 'success',
      message: 'Password of "pw-notes" changed; its other sessions are ended, this one goes on',
    });
    expect(fromIpctl.stderr).toBe(
      `note: the old password is still in ${ipctlFile}, key password of [profile lab]: change it there (nap does not write ipctl's file)\n`,
    );
    expect(readFileSync(ipctlFile, 'utf8')).toBe(ipctlBefore);
    // until it is changed there, nap goes on with this session
    const stale = await run(['api', 'get', '/whoami', '--profile', 'lab', '--debug'], { env: h.env });
    expect(stale.code).toBe(0);
    expect(stale.stderr).not.toContain('/login');

    const fromEnv = await run(['password', '--password-stdin'], {
      env: { ...home().env, NAP_URL: platform.url, NAP_USERNAME: 'pw-notes', NAP_PASSWORD: 'notes-password-2' },
      input: lines('notes-password-2', 'notes-password-3'),
    });
    expect(fromEnv).toMatchObject({ code: 0, stderr: 'note: NAP_PASSWORD still holds the old password: set it to the new one\n' });

    const fromIpctlVariable = await run(['password', '--password-stdin', '--profile', 'lab'], {
      env: { ...h.env, IPCTL_PROFILE_LAB_PASSWORD: 'notes-password-3' },
      input: lines('notes-password-3', 'notes-password-4'),
    });
    expect(fromIpctlVariable).toMatchObject({
      code: 0,
      stderr: 'note: IPCTL_PROFILE_LAB_PASSWORD still holds the old password: set it to the new one\n',
    });

    // OAuth client credentials: the client secret is the account's password
    const fromClientSecret = await run(['password', '--password-stdin'], {
      env: { ...home().env, NAP_URL: platform.url, NAP_CLIENT_ID: 'pw-notes', NAP_CLIENT_SECRET: 'notes-password-4' },
      input: lines('notes-password-4', 'notes-password-5'),
    });
    expect(fromClientSecret).toMatchObject({
      code: 0,
      stderr: 'note: NAP_CLIENT_SECRET still holds the old password: set it to the new one\n',
    });
    expect((await login('pw-notes', 'notes-password-5')).status).toBe(200);
  });

  it('makes a person wait after repeated wrong current passwords, and says how long, at the change and at any login of the profile', async () => {
    await account('pw-throttle', 'throttle-password-1');
    const h = home();
    h.writeNapConfig(section('default', platform.port, 'pw-throttle', 'throttle-password-1'));
    const input = lines('throttle-wrong-guess', 'throttle-password-2');
    // five failures in a row are allowed (the default threshold); the sixth attempt waits
    for (let i = 0; i < 5; i += 1) {
      const wrong = await run(['password', '--password-stdin'], { env: h.env, input });
      expect(wrong).toMatchObject({
        code: 5,
        stderr: expect.stringMatching(/^nap: the current password of "pw-throttle" is wrong;/) as unknown,
      });
    }
    const throttled = await run(['password', '--password-stdin'], { env: h.env, input });
    expect(throttled.code).toBe(5);
    expect(throttled.stderr).toMatch(
      /^nap: too many failed logins for "pw-throttle": try again in (5\d|60) seconds, or ask an administrator to unlock the account; the password is unchanged \(429 LOGIN_THROTTLED\)\n$/,
    );
    // any command whose profile must log in while the account waits says the same, right password or not
    const fresh = home();
    fresh.writeNapConfig(section('default', platform.port, 'pw-throttle', 'throttle-password-1'));
    const listing = await run(['jobs', 'list'], { env: fresh.env });
    expect(listing.code).toBe(5);
    expect(listing.stderr).toMatch(
      /^nap: too many failed logins for user "pw-throttle": try again in (5\d|60) seconds, or ask an administrator to unlock the account \(profile "default"; 429 LOGIN_THROTTLED\)\n$/,
    );
  });

  it('completes, and explains itself in --help', async () => {
    const h = home();
    const bash = await run(['completion', 'bash'], { env: h.env });
    const script = path.join(h.home, 'nap.bash');
    writeFileSync(script, bash.stdout);
    const complete = (words: string): string[] =>
      execFileSync(
        'bash',
        ['-c', `source ${script}; COMP_WORDS=(${words}); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _nap_complete; echo "\${COMPREPLY[*]}"`],
        { encoding: 'utf8' },
      )
        .trim()
        .split(/\s+/);
    expect(complete('nap pass')).toContain('password');
    expect(complete('nap password --pass')).toEqual(['--password-stdin']);
    const help = await run(['password', '--help'], { env: h.env });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: nap password \[options\]$/m);
    expect(help.stdout).toContain('--password-stdin');
  });
});

const slapdPresent = serverPresent(SLAPD, 'slapd ldap-utils');
const directorySuite = slapdPresent ? describe : describe.skip;

directorySuite('nap password for an account of a sign-in method', () => {
  let slapd: Slapd;
  let directoryPlatform: Platform;

  beforeAll(async () => {
    slapd = await startSlapd();
    await loadDirectory(slapd, [{ uid: 'erin', password: 'erin-directory-pw', givenName: 'Erin', sn: 'Net' }], { netops: ['erin'] });
    directoryPlatform = await startPlatform('directory-admin-password', {
      NAP_LDAP_URL: slapd.url,
      NAP_LDAP_BIND_DN: LDAP_SERVICE_DN,
      NAP_LDAP_BIND_PASSWORD: LDAP_SERVICE_PASSWORD,
      NAP_LDAP_USER_BASE: `ou=people,${LDAP_SUFFIX}`,
      NAP_LDAP_ADMIN_GROUPS: 'netops',
    });
  }, 120_000);

  afterAll(async () => {
    await directoryPlatform?.stop();
    await slapd?.stop();
  });

  it('says the password is changed in the directory, not in NAP (exit 1)', async () => {
    const h = home();
    h.writeNapConfig(section('default', directoryPlatform.port, 'erin', 'erin-directory-pw'));
    const res = await run(['password', '--password-stdin'], { env: h.env, input: lines('erin-directory-pw', 'erin-new-password') });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      /^nap: Account "erin" signs in with sign-in method "[^"]+": change the password there, not in NAP; the password is unchanged \(422 UNPROCESSABLE\)\n$/,
    );
  });
});

// last: what every test above had nap print
describe('what nap printed', () => {
  it('holds no password it was given, in any test of this file', () => {
    expect(printed.length).toBeGreaterThan(20);
    const shown = [...secrets]
      .filter((secret) => secret !== '')
      .filter((secret) => printed.some((res) => res.stdout.includes(secret) || res.stderr.includes(secret)));
    expect(shown).toEqual([]);
  });
});
