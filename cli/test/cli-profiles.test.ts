import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { NapHome } from './support/nap';
import { createHome, napInProcess, profileSection } from './support/nap';
import type { Platform } from './support/platform';
import { freePort, ROOT, startPlatform } from './support/platform';

let platform: Platform;
const homes: NapHome[] = [];

function home(): NapHome {
  const h = createHome();
  homes.push(h);
  return h;
}

beforeAll(async () => {
  platform = await startPlatform('profiles-password');
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  for (const h of homes) rmSync(h.home, { recursive: true, force: true });
});

const whoAmI = ['api', 'get', '/whoami', '-o', 'json'];

describe('profiles', () => {
  it("reads ipctl's file: [profile default] under named profiles, and [application] default_profile", async () => {
    const h = home();
    h.writeIpctlConfig(
      `[application]\ndefault_profile = lab\n\n[profile default]\nhost = 127.0.0.1\nport = ${platform.port}\nuse_tls = false\ntimeout = 10\n\n[profile lab]\nusername = admin\npassword = ${platform.password}\n`,
    );
    const res = await napInProcess(whoAmI, { env: h.env });
    expect(res.code).toBe(0);
    expect(res.json()).toMatchObject({ username: 'admin' });
  });

  it("reads NAP's own file, which wins over ipctl's key by key, and --profile or NAP_PROFILE pick one", async () => {
    const h = home();
    h.writeIpctlConfig(`${profileSection('prod', platform.port, 'the-old-password')}`);
    h.writeNapConfig(`[profile prod]\npassword = ${platform.password}\n\n${profileSection('other', 1, 'x')}`);
    expect((await napInProcess(['--profile', 'prod', ...whoAmI], { env: h.env })).code).toBe(0);
    expect((await napInProcess(whoAmI, { env: { ...h.env, NAP_PROFILE: 'prod' } })).code).toBe(0);
    const none = await napInProcess(whoAmI, { env: h.env });
    expect(none.code).toBe(4);
    expect(none.stderr).toMatch(
      /^nap: profile "default" is not in .*\.platform\.d\/config or .*nap\/config \(profiles: prod, other\); name one with --profile, or set NAP_URL and credentials\n$/,
    );
  });

  it('works from the environment alone: password, client credentials or a token', async () => {
    const h = home();
    const base = { ...h.env, NAP_URL: platform.url };
    expect((await napInProcess(whoAmI, { env: { ...base, NAP_USERNAME: 'admin', NAP_PASSWORD: platform.password } })).code).toBe(0);
    expect((await napInProcess(whoAmI, { env: { ...base, NAP_CLIENT_ID: 'admin', NAP_CLIENT_SECRET: platform.password } })).code).toBe(0);
    const login = await fetch(`${platform.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: { username: 'admin', password: platform.password } }),
    });
    const token = await login.text();
    const withToken = await napInProcess(['get', 'roles'], { env: { ...base, NAP_TOKEN: token } });
    expect(withToken.code).toBe(0);
    const noCredentials = await napInProcess(whoAmI, { env: base });
    expect(noCredentials).toMatchObject({ code: 4, stderr: expect.stringMatching(/^nap: NAP_URL is set but no credentials/) as unknown });
  });

  it('takes global flags before or after the command', async () => {
    const h = home();
    h.writeNapConfig(profileSection('p', platform.port, platform.password));
    const before = await napInProcess(['--profile', 'p', '-o', 'json', 'get', 'roles'], { env: h.env });
    const after = await napInProcess(['get', 'roles', '--profile', 'p', '-o', 'yaml'], { env: h.env });
    expect(before.json<{ name: string }[]>().map((r) => r.name)).toEqual(expect.arrayContaining(['admin', 'operations', 'auditor']));
    expect(after.stdout).toMatch(/^ {2}name: admin$/m);
  });
});

describe('the token cache', () => {
  it('keeps the token in a file only its owner can read, without the password, and logs in again when it is revoked', async () => {
    const h = home();
    h.writeNapConfig(profileSection('default', platform.port, platform.password));
    const first = await napInProcess(['get', 'roles', '--debug'], { env: h.env });
    expect(first.stderr).toMatch(
      /^curl -X POST 'http:\/\/127\.0\.0\.1:\d+\/login' -H 'accept: application\/json' -H 'user-agent: nap\/[0-9.]+' -H 'content-type: application\/json' -d '\{"user":\{"username":"admin","password":"\*\*\*\*"\}\}'$/m,
    );
    expect(first.stderr).toMatch(
      /^curl 'http:\/\/127\.0\.0\.1:\d+\/authorization\/roles\?skip=0&limit=500' -H 'accept: application\/json' -H 'user-agent: nap\/[0-9.]+' -H 'authorization: Bearer \*\*\*\*'$/m,
    );
    expect(first.stderr).not.toContain(platform.password);
    expect(first.stderr).not.toContain('nap1.');

    const file = path.join(h.home, '.cache', 'nap', 'tokens.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    const cached = readFileSync(file, 'utf8');
    expect(cached).not.toContain(platform.password);
    const token = (Object.values(JSON.parse(cached) as Record<string, { token: string }>)[0] as { token: string }).token;

    const second = await napInProcess(['get', 'roles', '--debug'], { env: h.env });
    expect(second.code).toBe(0);
    expect(second.stderr).not.toContain('/login');

    await fetch(`${platform.url}/logout`, { headers: { authorization: `Bearer ${token}` } });
    const third = await napInProcess(['get', 'roles', '--debug'], { env: h.env });
    expect(third.code).toBe(0);
    expect(third.stderr).toMatch(/^< 401 /m);
    expect(third.stderr).toContain('/login');
    expect(readFileSync(file, 'utf8')).not.toContain(token);
  });

  it('writes a new file of its own, never through a file or link already there', async () => {
    const h = home();
    h.writeNapConfig(profileSection('default', platform.port, platform.password));
    const folder = path.join(h.home, '.cache', 'nap');
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const elsewhere = path.join(h.home, 'elsewhere.txt');
    writeFileSync(elsewhere, 'kept\n');
    // the temporary file's name (nap runs in this process here)
    symlinkSync(elsewhere, path.join(folder, `tokens.json.${process.pid}.tmp`));
    expect((await napInProcess(['get', 'roles'], { env: h.env })).code).toBe(0);
    expect(readFileSync(elsewhere, 'utf8')).toBe('kept\n');
    const file = path.join(folder, 'tokens.json');
    expect(lstatSync(file).isFile()).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(folder)).toEqual(['tokens.json']);
  });

  it('is not used in a folder others may write to (XDG_CACHE_HOME shared), saying so once, and the command runs', async () => {
    const h = home();
    h.writeNapConfig(profileSection('default', platform.port, platform.password));
    const shared = path.join(h.home, 'shared');
    const folder = path.join(shared, 'nap');
    mkdirSync(folder, { recursive: true });
    chmodSync(folder, 0o777);
    // another user's token, left there for nap to use
    writeFileSync(path.join(folder, 'tokens.json'), '{}\n');
    const res = await napInProcess(['get', 'roles'], { env: { ...h.env, XDG_CACHE_HOME: shared } });
    expect(res.code).toBe(0);
    expect(res.stderr).toBe(
      `nap: the token cache is not used: ${folder} may be written by others (mode 0777); nap logs in on every run. Make the folder yours with mode 0700, or set XDG_CACHE_HOME to a folder of your own\n`,
    );
    expect(readFileSync(path.join(folder, 'tokens.json'), 'utf8')).toBe('{}\n');
    expect(readdirSync(folder)).toEqual(['tokens.json']);
  });
});

describe('errors', () => {
  it('exits 5 on wrong credentials, with one line and no stack', async () => {
    const h = home();
    h.writeNapConfig(profileSection('default', platform.port, 'not-the-password'));
    const res = await napInProcess(['get', 'workflows'], { env: h.env });
    expect(res.code).toBe(5);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(
      /^nap: http:\/\/127\.0\.0\.1:\d+ refused the credentials of user "admin" \(profile "default": The username or password of "admin" is wrong\); check them in the profile or the NAP_\* variables\n$/,
    );
    const client = await napInProcess(whoAmI, {
      env: { ...h.env, NAP_URL: platform.url, NAP_CLIENT_ID: 'admin', NAP_CLIENT_SECRET: 'wrong' },
    });
    expect(client.code).toBe(5);
  });

  it('exits 6 when the platform is unreachable, within the profile timeout', async () => {
    const h = home();
    const closed = await freePort();
    const refused = await napInProcess(['get', 'workflows'], {
      env: { ...h.env, NAP_URL: `http://127.0.0.1:${closed}`, NAP_USERNAME: 'admin', NAP_PASSWORD: 'x' },
    });
    expect(refused.code).toBe(6);
    expect(refused.stderr).toMatch(
      /^nap: cannot reach http:\/\/127\.0\.0\.1:\d+ \(connection refused\): is the platform running, and is NAP_URL right\?\n$/,
    );

    // a server that accepts connections and never answers
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    h.writeIpctlConfig(
      `[profile silent]\nhost = 127.0.0.1\nport = ${port}\nuse_tls = false\nusername = admin\npassword = x\ntimeout = 1\n`,
    );
    const started = Date.now();
    const res = await napInProcess(['get', 'workflows', '--profile', 'silent'], { env: h.env });
    const elapsedMs = Date.now() - started;
    for (const s of sockets) s.destroy();
    silent.close();
    expect(res.code).toBe(6);
    expect(res.stderr).toMatch(
      /^nap: http:\/\/127\.0\.0\.1:\d+ did not answer POST \/login within 1 s \(the timeout of profile "silent"\)\n$/,
    );
    expect(elapsedMs).toBeLessThan(6_000);
  });

  it("exits 6 when a proxy in front of the platform answers 502, 503 or 504 for it, and says so without its page's markup", async () => {
    const h = home();
    const pages: Record<string, [number, string, string]> = {
      '/login': [
        502,
        'text/html',
        '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>',
      ],
      '/automation-studio/automations': [504, 'text/plain', 'upstream request timeout'],
    };
    const proxy = http.createServer((req, res) => {
      const [status, type, body] = pages[(req.url ?? '').split('?')[0]!] ?? [
        404,
        'text/html',
        '<!DOCTYPE html><html><body>Not Found</body></html>',
      ];
      res.writeHead(status, { 'content-type': type }).end(body);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
    try {
      const login = await napInProcess(['get', 'workflows'], { env: { ...h.env, NAP_URL: url, NAP_USERNAME: 'admin', NAP_PASSWORD: 'x' } });
      expect(login.code).toBe(6);
      expect(login.stderr).toBe(
        `nap: ${url} answered 502 Bad Gateway to POST /login (an HTML page: "502 Bad Gateway"): that is a proxy or load balancer, not the platform, and it cannot reach the platform behind it; is the platform running?\n`,
      );
      const list = await napInProcess(['get', 'workflows'], { env: { ...h.env, NAP_URL: url, NAP_TOKEN: 'abc' } });
      expect(list.code).toBe(6);
      expect(list.stderr).toMatch(
        /answered 504 Gateway Timeout to GET \/automation-studio\/automations \(upstream request timeout\): that is a proxy/,
      );
      // another server altogether: its 404 is not the platform's (which names the route), exit 1
      const other = await napInProcess(['api', 'get', '/health/server'], { env: { ...h.env, NAP_URL: url, NAP_TOKEN: 'abc' } });
      expect(other.code).toBe(1);
      expect(other.stderr).toBe(
        `nap: GET /health/server failed: ${url} answered 404 without the platform's error (an HTML page): is it a NAP platform, and is NAP_URL right?\n`,
      );
    } finally {
      proxy.close();
    }
    // the platform's own 404 and 503 stay the platform's refusals (exit 1)
    h.writeNapConfig(profileSection('default', platform.port, platform.password));
    const missing = await napInProcess(['api', 'get', '/no/such/route'], { env: h.env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^nap: GET \/no\/such\/route failed: .+ \(404 NOT_FOUND\)\n$/);
  });

  it('exits 4 on usage errors, and prints stacks only with --debug', async () => {
    const h = home();
    h.writeNapConfig(profileSection('default', platform.port, platform.password));
    for (const [args, message] of [
      [['frobnicate'], /^nap: unknown command 'frobnicate'/],
      [['get', 'workflows', '--frob'], /^nap: unknown option '--frob'/],
      [
        ['delete', 'workflow', '-weird-name'],
        /^nap: unknown option '-weird-name'\n\(a name or id that begins with "-" goes after "--", as in: nap delete workflow -- -weird-name\)\n/,
      ],
      [['get', 'workflows', '-x'], /^nap: unknown option '-x'\n\(see nap get --help\)\n$/],
      [['jobs', 'retry', 'j1'], /^nap: missing required argument 'task'\n\(see nap jobs retry --help\)\n$/],
      [['get', 'widgets'], /^nap: unknown resource "widgets"; one of: workflows, transformations/],
      [['get', 'roles', '-o', 'xml'], /^nap: option '-o, --output <format>' argument 'xml' is invalid/],
      [['describe', 'workflow'], /^nap: missing required argument 'name'/],
      [['run', 'workflow', 'x', '--timeout', 'soon'], /^nap: --timeout soon: expected a duration such as 30s, 5m, 1h or 2d/],
      [['--profile', 'missing', 'get', 'roles'], /^nap: profile "missing" is not in/],
      [[], /^Usage: nap \[options\] \[command\]/],
      // a command group without its subcommand, and help for a word that is no command
      [['jobs'], /^Usage: nap jobs \[options\] \[command\]/],
      [['run'], /^Usage: nap run \[options\] \[command\]/],
      [['audit'], /^Usage: nap audit \[options\] \[command\]/],
      [['help', 'bogus'], /^nap: unknown command "bogus"; the commands: get, describe, /],
    ] as const) {
      const res = await napInProcess([...args], { env: h.env });
      expect({ args, code: res.code }).toEqual({ args, code: 4 });
      expect(res.stderr).toMatch(message);
      expect(res.stderr).not.toMatch(/^\s+at /m);
    }
    const notFound = await napInProcess(['api', 'get', '/operations-manager/jobs/nope'], { env: h.env });
    expect(notFound).toMatchObject({
      code: 1,
      stderr: 'nap: GET /operations-manager/jobs/nope failed: No job with id "nope" (404 JOB_NOT_FOUND)\n',
    });
    const debug = await napInProcess(['describe', 'workflow', 'nope', '--debug'], { env: h.env });
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/^curl /m);
  });
});

describe('the environment', () => {
  it('names the variable that holds a bad value, or the credentials refused', async () => {
    const h = home();
    const env = { ...h.env, NAP_USERNAME: 'admin', NAP_PASSWORD: platform.password };
    for (const [extra, message] of [
      [{ NAP_URL: `127.0.0.1:${platform.port}` }, `nap: NAP_URL=127.0.0.1:${platform.port} is not an http:// or https:// URL\n`],
      [{ NAP_URL: platform.url, NAP_VERIFY: 'maybe' }, 'nap: NAP_VERIFY=maybe is not true or false\n'],
      [{ NAP_URL: platform.url, NAP_TIMEOUT: 'soon' }, 'nap: NAP_TIMEOUT=soon is not a number of seconds\n'],
    ] as const) {
      expect(await napInProcess(['get', 'roles'], { env: { ...env, ...extra } })).toMatchObject({ code: 4, stderr: message });
    }
    // NAP_VERIFY of a named profile is the variable's too, and ipctl's variables are named as well
    h.writeNapConfig(profileSection('lab', platform.port, platform.password));
    expect(await napInProcess(['get', 'roles', '--profile', 'lab'], { env: { ...h.env, NAP_VERIFY: 'maybe' } })).toMatchObject({
      code: 4,
      stderr: 'nap: NAP_VERIFY=maybe is not true or false\n',
    });
    expect(await napInProcess(['get', 'roles', '--profile', 'lab'], { env: { ...h.env, IPCTL_PROFILE_LAB_PORT: 'x' } })).toMatchObject({
      code: 4,
      stderr: 'nap: IPCTL_PROFILE_LAB_PORT=x is not a port number\n',
    });
    // a URL with a password in it: refused, the password never shown
    const inUrl = await napInProcess(['get', 'roles'], {
      env: { ...h.env, NAP_URL: `http://admin:url-secret-1@127.0.0.1:${platform.port}`, NAP_TOKEN: 'x' },
    });
    expect(inUrl).toMatchObject({
      code: 4,
      stderr: `nap: NAP_URL=http://admin:****@127.0.0.1:${platform.port} holds credentials, which a URL cannot carry: give them as username and password (NAP_USERNAME and NAP_PASSWORD) instead\n`,
    });
    const revoked = await napInProcess(['get', 'roles'], { env: { ...h.env, NAP_URL: platform.url, NAP_TOKEN: 'not-a-token' } });
    expect(revoked.code).toBe(5);
    expect(revoked.stderr).toMatch(/^nap: http:\/\/127\.0\.0\.1:\d+ refused the credentials of NAP_TOKEN \(401 /);
    // a token whose session ended: "log in again" is said as what to do with nap, which never renews a token
    const login = await fetch(`${platform.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: { username: 'admin', password: platform.password } }),
    });
    const ended = (await login.text()).replace(/^"|"$/g, '');
    expect((await fetch(`${platform.url}/logout`, { headers: { authorization: `Bearer ${ended}` } })).status).toBe(200);
    const fromEnv = await napInProcess(['get', 'roles'], { env: { ...h.env, NAP_URL: platform.url, NAP_TOKEN: ended } });
    expect(fromEnv.code).toBe(5);
    expect(fromEnv.stderr).toBe(
      `nap: ${platform.url} refused the credentials of NAP_TOKEN (401 UNAUTHENTICATED: The session has ended; log in again); nap never renews a token: set NAP_TOKEN to a new one, or unset it and set NAP_USERNAME and NAP_PASSWORD (or NAP_CLIENT_ID and NAP_CLIENT_SECRET) for nap to log in by itself\n`,
    );
    h.writeNapConfig(`[profile kept]\nurl = ${platform.url}\ntoken = ${ended}\n`);
    const fromProfile = await napInProcess(['get', 'roles', '--profile', 'kept'], { env: h.env });
    expect(fromProfile.code).toBe(5);
    expect(fromProfile.stderr).toMatch(
      /refused the credentials of profile "kept" \(401 UNAUTHENTICATED: .+\); nap never renews a token: put a new one in profile "kept", or give the profile username and password \(or client_id and client_secret\) instead of a token for nap to log in by itself\n$/,
    );
    const wrong = await napInProcess(['get', 'roles'], {
      env: { ...h.env, NAP_URL: platform.url, NAP_USERNAME: 'admin', NAP_PASSWORD: 'wrong' },
    });
    expect(wrong.code).toBe(5);
    expect(wrong.stderr).toMatch(
      /^nap: http:\/\/127\.0\.0\.1:\d+ refused the credentials of user "admin" \(NAP_USERNAME and NAP_PASSWORD: .+\); check NAP_USERNAME and NAP_PASSWORD\n$/,
    );
  });
});

describe('output', () => {
  it('colours only a terminal or FORCE_COLOR, never with --no-color, and answers --version and completion', async () => {
    const h = home();
    h.writeNapConfig(profileSection('default', platform.port, platform.password));
    expect((await napInProcess(['get', 'roles'], { env: h.env })).stdout).not.toContain('\u001b[');
    expect((await napInProcess(['get', 'roles'], { env: { ...h.env, FORCE_COLOR: '1' } })).stdout).toContain('\u001b[1mNAME');
    expect((await napInProcess(['get', 'roles', '--no-color'], { env: { ...h.env, FORCE_COLOR: '1' } })).stdout).not.toContain('\u001b[');

    const version = await napInProcess(['--version'], { env: h.env });
    expect(version.stdout).toBe(
      `${(JSON.parse(readFileSync(path.join(ROOT, 'cli/package.json'), 'utf8')) as { version: string }).version}\n`,
    );

    const bash = await napInProcess(['completion', 'bash'], { env: h.env });
    expect(bash.stdout).toContain('complete -o default -F _nap_complete nap');
    expect(bash.stdout).toContain('integration-models');
    const script = path.join(h.home, 'nap.bash');
    writeFileSync(script, bash.stdout);
    execFileSync('bash', ['-n', script]);
    const words = execFileSync(
      'bash',
      ['-c', `source ${script}; COMP_WORDS=(nap jobs ''); COMP_CWORD=2; _nap_complete; echo "\${COMPREPLY[*]}"`],
      { encoding: 'utf8' },
    );
    expect(words.split(' ')).toEqual(expect.arrayContaining(['list', 'describe', 'watch', 'cancel', 'retry']));
    // a group's subcommand is part of the command: its own flags complete
    const auditFlags = execFileSync(
      'bash',
      ['-c', `source ${script}; COMP_WORDS=(nap audit list --); COMP_CWORD=3; _nap_complete; echo "\${COMPREPLY[*]}"`],
      { encoding: 'utf8' },
    );
    expect(auditFlags.split(/\s+/)).toEqual(expect.arrayContaining(['--actor', '--outcome', '--since']));
    // the first word: each command and global flag once (the root's flags are the global ones)
    const first = execFileSync(
      'bash',
      ['-c', `source ${script}; COMP_WORDS=(nap --); COMP_CWORD=1; _nap_complete; printf '%s\\n' "\${COMPREPLY[@]}"`],
      { encoding: 'utf8' },
    )
      .trim()
      .split('\n');
    expect(first).toEqual(expect.arrayContaining(['--profile', '--output', '--debug']));
    expect(first).toEqual([...new Set(first)]);
    const zsh = await napInProcess(['completion', 'zsh'], { env: h.env });
    expect(zsh.stdout).toMatch(/^#compdef nap$/m);
  });
});

describe('inspect and lifecycle', () => {
  it('inspects the server and its applications, and stops and starts an application', async () => {
    const h = home();
    h.writeNapConfig(profileSection('default', platform.port, platform.password));
    const server = await napInProcess(['inspect', 'server'], { env: h.env });
    expect(server.stdout).toMatch(/^Version:\s+\d+\.\d+\.\d+$/m);
    expect(server.stdout).toMatch(/^Applications: (\d+) of \1 running$/m);
    // the embedded store's disk: what is free, and what the store keeps
    expect(server.stdout).toMatch(/^Store:\s+embedded, \d+(\.\d)? [MG]iB free of \d+(\.\d)? [MG]iB \(keeps 128 MiB\)$/m);
    const state = async (): Promise<string | undefined> => {
      const apps = (await napInProcess(['inspect', 'applications', '-o', 'json'], { env: h.env })).json<
        { data: { name: string }; metadata: { state: string } }[]
      >();
      return apps.find((a) => a.data.name === 'MOP')?.metadata.state;
    };
    expect(await state()).toBe('RUNNING');
    expect((await napInProcess(['stop', 'application', 'MOP'], { env: h.env })).stdout).toBe('stopped application MOP (STOPPED)\n');
    expect(await state()).toBe('STOPPED');
    expect((await napInProcess(['start', 'application', 'MOP'], { env: h.env })).stdout).toBe('started application MOP (RUNNING)\n');
    const missing = await napInProcess(['restart', 'adapter', 'nope'], { env: h.env });
    expect(missing).toMatchObject({
      code: 1,
      stderr: 'nap: PUT /adapters/nope/restart failed: No adapter "nope" (404 ADAPTER_NOT_FOUND)\n',
    });
    const wrongKind = await napInProcess(['restart', 'service', 'MOP'], { env: h.env });
    expect(wrongKind).toMatchObject({ code: 4, stderr: 'nap: nap restart service: one of application, adapter\n' });
  });
});

describe('the package', () => {
  it('packs into a tarball that installs nap globally with no other part of the repository', async () => {
    const h = home();
    const out = mkdtempSync(path.join(os.tmpdir(), 'nap-cli-pack-'));
    try {
      const npmEnv = {
        ...process.env,
        npm_config_cache: path.join(out, 'npm-cache'),
        npm_config_update_notifier: 'false',
        npm_config_fund: 'false',
        npm_config_audit: 'false',
      };
      execFileSync('npm', ['pack', '--pack-destination', out], { cwd: path.join(ROOT, 'cli'), env: npmEnv, stdio: 'pipe' });
      const tarball = readdirSync(out).find((f) => f.endsWith('.tgz'));
      expect(tarball).toBeDefined();
      const prefix = path.join(out, 'prefix');
      execFileSync('npm', ['install', '-g', '--offline', '--prefix', prefix, path.join(out, tarball!)], {
        cwd: out,
        env: npmEnv,
        stdio: 'pipe',
      });
      const bin = path.join(prefix, 'bin', 'nap');
      const env = { ...h.env, NAP_URL: platform.url, NAP_USERNAME: 'admin', NAP_PASSWORD: platform.password };
      expect(execFileSync(bin, ['--version'], { env, cwd: out, encoding: 'utf8' }).trim()).toMatch(/^\d+\.\d+\.\d+$/);
      const roles = JSON.parse(execFileSync(bin, ['get', 'roles', '-o', 'json'], { env, cwd: out, encoding: 'utf8' })) as {
        name: string;
      }[];
      expect(roles.map((r) => r.name)).toContain('admin');
      const installed = path.join(prefix, 'lib', 'node_modules', '@nap', 'cli');
      expect(readdirSync(installed).sort()).toEqual(['README.md', 'bin', 'dist', 'package.json']);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
