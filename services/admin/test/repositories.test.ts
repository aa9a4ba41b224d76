import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { freePort } from '@nap/testing';

/**
 * Prebuilt repositories through HTTP: configurations kept in the active profile, a local directory
 * of packages, a GitLab group (a small GitLab API peer on loopback) and a GitLab server that does
 * not answer.
 */

let platform: TestPlatform;
let token: string;
let dir: string;
let gitlab: Server;
let gitlabPort: number;
const seenTokens: (string | undefined)[] = [];

function writePackage(file: string, name: string, version: string): void {
  const pkg = {
    metadata: { name, version, description: `${name} for tests` },
    manifest: { bundleName: name, artifacts: [] },
    bundles: [{ type: 'transformation', data: { name: `${name}: t`, incoming: [], outgoing: [], steps: [], functions: [] } }],
    readme: `# ${name}`,
  };
  writeFileSync(path.join(dir, file), JSON.stringify(pkg));
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'nap-repo-'));
  writePackage('a.json', '@example/alpha', '1.0.0');
  writePackage('b.json', '@example/beta', '2.1.0');
  writeFileSync(path.join(dir, 'notes.json'), '{"not":"a package"}');
  writeFileSync(path.join(dir, 'broken.json'), '{');
  writeFileSync(path.join(dir, 'README.md'), 'not a package');
  gitlab = createServer((req, res) => {
    seenTokens.push(req.headers['private-token'] as string | undefined);
    const url = new URL(req.url ?? '/', 'http://x');
    res.setHeader('content-type', 'application/json');
    if (url.pathname === '/api/v4/groups/itentialopensource%2Fpre-built-automations/projects') {
      res.end(
        JSON.stringify([
          { id: 11, default_branch: 'master' },
          { id: 12, default_branch: 'main' },
        ]),
      );
    } else if (url.pathname === '/api/v4/projects/11/repository/files/package.json/raw' && url.searchParams.get('ref') === 'master') {
      res.end(JSON.stringify({ name: '@itentialopensource/cisco-ios-upgrade', version: '1.4.0', description: 'IOS upgrade' }));
    } else {
      res.statusCode = 404;
      res.end('{"message":"404 Not Found"}');
    }
  });
  await new Promise<void>((resolve) => gitlab.listen(0, '127.0.0.1', resolve));
  gitlabPort = (gitlab.address() as AddressInfo).port;
  platform = await startTestPlatform();
  token = await platform.login();
});

afterAll(async () => {
  await platform?.stop();
  await new Promise((resolve) => gitlab?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

type Failure = { code: string; message: string; details?: { member: string }[] };
type Listed = {
  repository: string;
  metadata: { name: string; version: string };
  readme: string;
  bundles?: unknown[];
  installed: { id: string; version: string } | null;
};

describe('prebuilt repository configurations', () => {
  it('are kept in the active profile, tokens sealed and answered as ********', async () => {
    expect((await platform.http('GET', '/prebuilts-repository/configs', { token })).body).toEqual({ results: [], total: 0 });
    const local = await platform.http('POST', '/prebuilts-repository/configs', {
      token,
      body: { config: { name: 'shelf', type: 'local', path: dir, description: 'packages on this host' } },
    });
    expect(local.status).toBe(200);
    expect(local.body).toEqual({ name: 'shelf', type: 'local', path: dir, enabled: true, description: 'packages on this host' });
    const gl = await platform.http('POST', '/prebuilts-repository/configs', {
      token,
      body: {
        config: {
          name: 'opensource',
          type: 'gitlab',
          hostname: `127.0.0.1:${gitlabPort}`,
          protocol: 'http',
          path: 'itentialopensource/pre-built-automations',
          credentials: { token: 'glpat-secret-value-1' },
        },
      },
    });
    expect(gl.status).toBe(200);
    expect(gl.body).toMatchObject({ name: 'opensource', credentials: { token: '********' } });

    const list = (await platform.http('GET', '/prebuilts-repository/configs', { token })).body as { results: { name: string }[] };
    expect(list.results.map((c) => c.name)).toEqual(['opensource', 'shelf']);
    expect((await platform.http('GET', '/prebuilts-repository/configs?equals=gitlab&equalsField=type', { token })).body).toMatchObject({
      total: 1,
      results: [{ name: 'opensource' }],
    });
    const badField = await platform.http('GET', '/prebuilts-repository/configs?contains=x&containsField=credentials.token', { token });
    expect(badField.status).toBe(400);
    const profile = (await platform.http('GET', '/profiles/default', { token })).body as {
      metadata: { isActive: boolean };
      profile: { prebuiltProps: { repoConfigs: Record<string, { credentials?: { token: string } }> } };
    };
    expect(profile.metadata.isActive).toBe(true);
    expect(Object.keys(profile.profile.prebuiltProps.repoConfigs).sort()).toEqual(['opensource', 'shelf']);
    expect(profile.profile.prebuiltProps.repoConfigs.opensource?.credentials?.token).toBe('********');
    // never in clear at rest
    const admin = platform.stores.get('admin');
    const stored = JSON.stringify(await admin?.collection('profiles').find({}));
    expect(stored).toContain('opensource');
    expect(stored).not.toContain('glpat-secret-value-1');

    // a token sent back as ******** keeps the stored one (the peer sees it)
    const patched = await platform.http('PATCH', '/prebuilts-repository/configs/opensource', {
      token,
      body: { config: { description: 'the open-source group', credentials: { token: '********' } } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ description: 'the open-source group', credentials: { token: '********' } });
    seenTokens.length = 0;
    expect((await platform.http('GET', '/prebuilts-repository?config=opensource', { token })).status).toBe(200);
    expect(seenTokens[0]).toBe('glpat-secret-value-1');
  });

  it.each([
    ['a relative directory', { name: 'x', type: 'local', path: 'relative/dir' }, 'body.config.path'],
    ['a gitlab repository without hostname', { name: 'x', type: 'gitlab', path: 'group' }, 'body.config.hostname'],
    ['a name with a dot', { name: 'a.b', type: 'local', path: '/tmp' }, 'body.config.name'],
    ['an unknown type', { name: 'x', type: 'github', path: '/tmp' }, 'type'],
    [
      'a masked token on creation',
      { name: 'x', type: 'gitlab', hostname: 'gitlab.com', path: 'g', credentials: { token: '********' } },
      'body.config.credentials.token',
    ],
  ])('refuse %s with 400 naming the member', async (_what, config, member) => {
    const res = await platform.http('POST', '/prebuilts-repository/configs', { token, body: { config } });
    expect(res.status).toBe(400);
    expect(JSON.stringify((res.body as Failure).details)).toContain(member);
  });

  it('answer 409 for a name that exists and 404 for one that does not', async () => {
    const dup = await platform.http('POST', '/prebuilts-repository/configs', {
      token,
      body: { config: { name: 'shelf', type: 'local', path: '/tmp' } },
    });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ code: 'REPOSITORY_CONFIG_ALREADY_EXISTS' });
    expect(
      (await platform.http('PATCH', '/prebuilts-repository/configs/nope', { token, body: { config: { enabled: false } } })).status,
    ).toBe(404);
    expect((await platform.http('DELETE', '/prebuilts-repository/configs/nope', { token })).status).toBe(404);
    expect((await platform.http('GET', '/prebuilts-repository?config=nope', { token })).status).toBe(404);
  });
});

describe('GET /prebuilts-repository', () => {
  it('lists the packages of a local directory, one with its bundles by name, and the installed version', async () => {
    const res = await platform.http('GET', '/prebuilts-repository?config=shelf', { token });
    expect(res.status).toBe(200);
    const { results, total } = res.body as { results: Listed[]; total: number };
    expect(total).toBe(2);
    expect(results.map((p) => [p.metadata.name, p.metadata.version, p.installed])).toEqual([
      ['@example/alpha', '1.0.0', null],
      ['@example/beta', '2.1.0', null],
    ]);
    expect(results[0]?.bundles).toBeUndefined();
    const filtered = (await platform.http('GET', '/prebuilts-repository?config=shelf&contains=alp&containsField=metadata.name', { token }))
      .body as { results: Listed[]; total: number };
    expect(filtered.results.map((p) => p.metadata.name)).toEqual(['@example/alpha']);
    const paged = (await platform.http('GET', '/prebuilts-repository?config=shelf&skip=1&limit=1', { token })).body as {
      results: Listed[];
      total: number;
    };
    expect({ names: paged.results.map((p) => p.metadata.name), total: paged.total }).toEqual({ names: ['@example/beta'], total: 2 });

    const one = (await platform.http('GET', '/prebuilts-repository?config=shelf&name=@example/beta', { token })).body as {
      results: (Listed & { manifest: unknown })[];
    };
    expect(one.results).toHaveLength(1);
    const [beta] = one.results;
    expect(beta?.bundles).toHaveLength(1);
    const installed = await platform.http('POST', '/prebuilts/import', {
      token,
      body: { prebuilt: { metadata: beta?.metadata, manifest: beta?.manifest, bundles: beta?.bundles, readme: beta?.readme } },
    });
    expect(installed.status).toBe(200);
    const after = (await platform.http('GET', '/prebuilts-repository?config=shelf&name=@example/beta', { token })).body as {
      results: Listed[];
    };
    expect(after.results[0]?.installed).toEqual({ id: (installed.body as { data: { _id: string } }).data._id, version: '2.1.0' });
  });

  it('lists the projects of a GitLab group that carry a package.json', async () => {
    const res = await platform.http('GET', '/prebuilts-repository?config=opensource', { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      total: 1,
      results: [
        { repository: 'opensource', metadata: { name: '@itentialopensource/cisco-ios-upgrade', version: '1.4.0' }, installed: null },
      ],
    });
  });

  it('reports a GitLab server that does not answer, and a missing directory, as unreachable, naming the repository', async () => {
    const port = await freePort();
    await platform.http('POST', '/prebuilts-repository/configs', {
      token,
      body: { config: { name: 'offline', type: 'gitlab', hostname: `127.0.0.1:${port}`, protocol: 'http', path: 'group' } },
    });
    const res = await platform.http('GET', '/prebuilts-repository?config=offline', { token });
    expect(res.status).toBe(502);
    expect((res.body as Failure).code).toBe('REPOSITORY_UNREACHABLE');
    expect((res.body as Failure).message).toContain('"offline"');
    expect((res.body as Failure).message).toContain(`127.0.0.1:${port}`);
    // every enabled repository is read when none is named: the unreachable one is named
    expect(((await platform.http('GET', '/prebuilts-repository', { token })).body as Failure).message).toContain('"offline"');
    // disabled, it is left out of the listing of all
    expect(
      (await platform.http('PATCH', '/prebuilts-repository/configs/offline', { token, body: { config: { enabled: false } } })).status,
    ).toBe(200);
    expect((await platform.http('GET', '/prebuilts-repository', { token })).body).toMatchObject({ total: 3 });

    await platform.http('POST', '/prebuilts-repository/configs', {
      token,
      body: { config: { name: 'gone', type: 'local', path: path.join(dir, 'missing') } },
    });
    const gone = await platform.http('GET', '/prebuilts-repository?config=gone', { token });
    expect(gone.status).toBe(502);
    expect((gone.body as Failure).message).toContain('ENOENT');
    expect((await platform.http('DELETE', '/prebuilts-repository/configs/gone', { token })).status).toBe(200);
    expect((await platform.http('GET', '/prebuilts-repository?config=gone', { token })).status).toBe(404);
  });
});
