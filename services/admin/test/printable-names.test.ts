import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { UNPRINTABLE_NAME_CHARACTERS } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

/**
 * The names people choose for what the admin service keeps (adapters and their model, integrations,
 * integration models from an OpenAPI document's info.title and info.version, profiles, prebuilts,
 * repository configurations, accounts) are one line of printable text: a control character, a line
 * separator or a bidirectional override is refused with 400 VALIDATION_FAILED naming the member and
 * the character as U+XXXX, on create and import; an update, which keeps the name, refuses another one
 * naming the member, and shows the name it was sent escaped. Names of any script are taken, and those
 * that are route ids round-trip as percent-encoded path segments.
 */

let platform: TestPlatform;
let token: string;
let shelf: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
  shelf = mkdtempSync(path.join(tmpdir(), 'nap-printable-names-'));
});

afterAll(async () => {
  await platform?.stop();
  if (shelf !== undefined) rmSync(shelf, { recursive: true, force: true });
});

/** A name with each kind of character names may not hold: [name, its code point, what the message calls it]. */
const REFUSED: [string, string, string][] = [
  ['core\u001b[2J-check', 'U+001B', 'control character'],
  ['core\u202egnp.exe', 'U+202E', 'bidirectional formatting character'],
  ['core\u2028forged line', 'U+2028', 'line separator'],
];
const ZURICH = 'Zürich core 東京';
const UNPRINTABLE = new RegExp(`[${UNPRINTABLE_NAME_CHARACTERS}]`, 'u');

type Answer = { status: number; body: unknown };
type Failure = { code: string; message: string; details?: { member: string; message: string }[] };

async function send(method: string, route: string, body?: unknown): Promise<Answer> {
  return platform.http(method, route, { token, ...(body === undefined ? {} : { body }) });
}

/** The answer is 400 VALIDATION_FAILED whose details name `member` and the character as U+XXXX at `position` (that of the names of {@link REFUSED}). */
function expectRefused(res: Answer, member: string, codePoint: string, kind: string, position = 5): void {
  expect([res.status, (res.body as Failure).code]).toEqual([400, 'VALIDATION_FAILED']);
  expect((res.body as Failure).details).toContainEqual({
    member,
    message: `${member} contains the ${kind} ${codePoint} at position ${position}; a name is one line of printable text`,
    keyword: 'pattern',
  });
}

/** The answer is 400 VALIDATION_FAILED naming `member`, its message holding no character names may not hold (the name it was sent escaped). */
function expectRefusedEscaped(res: Answer, member: string, status = 400): void {
  expect(res.status).toBe(status);
  const failure = res.body as Failure;
  expect(failure.details?.map((d) => d.member)).toContain(member);
  for (const text of [failure.message, ...(failure.details ?? []).map((d) => d.message)]) expect(text).not.toMatch(UNPRINTABLE);
}

const route = (prefix: string, name: string) => `${prefix}/${encodeURIComponent(name)}`;

function httpAdapter(name: string, model = '@nap/adapter-http'): Record<string, unknown> {
  return {
    name,
    type: 'Adapter',
    model,
    properties: {
      id: name,
      type: 'HTTP',
      properties: {
        server: { protocol: 'http', host: '127.0.0.1', port: 9, base_path: '/api' },
        authentication: { type: 'none' },
      },
    },
  };
}

describe('adapters', () => {
  it.each(REFUSED)('create and import refuse a name or model with %j, naming the member and the character', async (bad, code, kind) => {
    for (const at of ['/adapters', '/adapters/import']) {
      expectRefused(await send('POST', at, { properties: httpAdapter(bad) }), 'body.properties.name', code, kind);
      expectRefused(await send('POST', at, { properties: httpAdapter('fine', bad) }), 'body.properties.model', code, kind);
    }
    expect((await send('GET', route('/adapters', bad))).status).toBe(404);
  });

  it('take a name of any script, reached by its percent-encoded path; an update keeps the name and refuses another model', async () => {
    const created = await send('POST', '/adapters', { properties: httpAdapter(ZURICH, '@nap/adapter-http 東京') });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ data: { name: ZURICH, model: '@nap/adapter-http 東京' } });
    expect(await send('GET', route('/adapters', ZURICH))).toMatchObject({ status: 200, body: { data: { name: ZURICH } } });
    expect((await send('GET', route('/adapters', ZURICH) + '/export')).body).toMatchObject({ name: ZURICH });
    for (const [bad, code, kind] of REFUSED) {
      expectRefusedEscaped(await send('PUT', route('/adapters', ZURICH), { properties: httpAdapter(bad) }), 'body.properties.name');
      expectRefused(
        await send('PUT', route('/adapters', ZURICH), { properties: httpAdapter(ZURICH, bad) }),
        'body.properties.model',
        code,
        kind,
      );
    }
    const updated = await send('PUT', route('/adapters', ZURICH), { properties: httpAdapter(ZURICH, '@nap/adapter-http Zürich') });
    expect(updated).toMatchObject({ status: 200, body: { data: { name: ZURICH, model: '@nap/adapter-http Zürich' } } });
    expect((await send('GET', '/adapters?equals=' + encodeURIComponent(ZURICH) + '&equalsField=name')).body).toMatchObject({
      results: [{ data: { name: ZURICH } }],
    });
    expect((await send('DELETE', route('/adapters', ZURICH))).status).toBe(200);
  });
});

/** A small OpenAPI document titled `title`. */
function openapi(title: unknown, version: unknown = '1'): Record<string, unknown> {
  return {
    openapi: '3.0.3',
    info: { title, version },
    servers: [{ url: 'https://api.example.com/v1' }],
    paths: { '/things': { get: { operationId: 'listThings', responses: { '200': { description: 'the things' } } } } },
  };
}

describe('integration models and integrations', () => {
  it.each(REFUSED)('a model whose info.title or info.version holds %j is refused, naming it and the character', async (bad, code, kind) => {
    for (const [method, at] of [
      ['POST', '/integration-models'],
      ['PUT', '/integration-models/validation'],
    ] as const) {
      expectRefused(await send(method, at, { model: openapi(bad) }), 'body.model.info.title', code, kind);
      expectRefused(await send(method, at, { model: openapi('Fine API', bad) }), 'body.model.info.version', code, kind);
    }
    expect((await send('GET', route('/integration-models', `${bad}:1`))).status).toBe(404);
  });

  it('a title that is not a string is still the check of the document (INTEGRATION_MODEL_INVALID), not of the name', async () => {
    const res = await send('POST', '/integration-models', { model: openapi(42) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INTEGRATION_MODEL_INVALID' });
  });

  it('a model and an integration take a name of any script, reached by their percent-encoded paths', async () => {
    const title = `${ZURICH} API`;
    const versionId = `${title}:1`;
    const model = await send('POST', '/integration-models', { model: openapi(title) });
    expect([model.status, model.body]).toMatchObject([200, { status: 'Created', data: { versionId, title } }]);
    expect(await send('GET', route('/integration-models', versionId))).toMatchObject({ status: 200, body: { versionId } });
    expect((await send('PUT', '/integration-models/validation', { model: openapi(title) })).body).toMatchObject({ valid: true });

    for (const [bad, code, kind] of REFUSED)
      expectRefused(
        await send('POST', '/integrations', { properties: { name: bad, model: versionId } }),
        'body.properties.name',
        code,
        kind,
      );
    const created = await send('POST', '/integrations', { properties: { name: ZURICH, model: versionId } });
    expect(created.status).toBe(200);
    expect(await send('GET', route('/integrations', ZURICH))).toMatchObject({ status: 200, body: { data: { name: ZURICH } } });
    for (const [bad] of REFUSED) {
      expectRefusedEscaped(await send('PUT', route('/integrations', ZURICH), { properties: { name: bad } }), 'body.properties.name');
      expectRefusedEscaped(
        await send('PUT', route('/integrations', ZURICH) + '/properties', { properties: { name: bad } }),
        'body.properties.name',
      );
    }
    expect((await send('PUT', route('/integrations', ZURICH), { properties: { name: ZURICH, type: 'Application' } })).status).toBe(200);
    expect((await send('DELETE', route('/integrations', ZURICH))).status).toBe(200);
    expect((await send('DELETE', route('/integration-models', versionId))).status).toBe(200);
  });
});

describe('profiles', () => {
  it('create and import refuse an id with a control character, a line separator or an override; an update keeps its id', async () => {
    for (const [bad, code, kind] of REFUSED) {
      expectRefused(await send('POST', '/profiles', { properties: { id: bad } }), 'body.properties.id', code, kind);
      expectRefused(await send('POST', '/profiles/import', { profile: { id: bad } }), 'body.profile.id', code, kind);
    }
    const created = await send('POST', '/profiles', { properties: { id: ZURICH, description: '東京 lab' } });
    expect(created.status).toBe(200);
    expect(await send('GET', route('/profiles', ZURICH))).toMatchObject({ status: 200, body: { profile: { id: ZURICH } } });
    for (const [bad] of REFUSED)
      expectRefusedEscaped(await send('PUT', route('/profiles', ZURICH), { properties: { id: bad } }), 'body.properties.id');
    expect((await send('PUT', route('/profiles', ZURICH), { properties: { id: ZURICH, description: 'Zürich lab' } })).status).toBe(200);
    const exported = (await send('GET', route('/profiles', ZURICH) + '/export')).body as Record<string, unknown>;
    expect((await send('DELETE', route('/profiles', ZURICH))).status).toBe(200);
    expect((await send('POST', '/profiles/import', { profile: exported })).status).toBe(200);
    expect((await send('DELETE', route('/profiles', ZURICH))).status).toBe(200);
  });
});

describe('prebuilts', () => {
  const pkg = (name: string, version = '1.0.0', jst = 'printable names: jst') => ({
    metadata: { name, version },
    bundles: [{ type: 'transformation', data: { name: jst, incoming: [], outgoing: [], steps: [], functions: [] } }],
  });

  it.each(REFUSED)('import and its validation refuse a package name or version with %j', async (bad, code, kind) => {
    for (const [method, at] of [
      ['POST', '/prebuilts/import'],
      ['PUT', '/prebuilts/import/validation'],
    ] as const) {
      expectRefused(await send(method, at, { prebuilt: pkg(bad) }), 'body.prebuilt.metadata.name', code, kind);
      expectRefused(await send(method, at, { prebuilt: pkg('@example/fine', bad) }), 'body.prebuilt.metadata.version', code, kind);
    }
  });

  it('a package name of any script installs; an upgrade keeps the name and refuses a version with a control character', async () => {
    const name = `@example/${ZURICH}`;
    const installed = await send('POST', '/prebuilts/import', { prebuilt: pkg(name, '1.0.0', `${ZURICH} jst`) });
    expect(installed.status).toBe(200);
    const id = (installed.body as { data: { _id: string } }).data._id;
    expect(await send('GET', route('/prebuilts', id))).toMatchObject({ status: 200, body: { metadata: { name } } });
    for (const [bad, code, kind] of REFUSED) {
      expectRefusedEscaped(await send('PUT', route('/prebuilts', id), { prebuilt: pkg(bad, '2.0.0') }), 'body.prebuilt.metadata.name', 409);
      expectRefused(await send('PUT', route('/prebuilts', id), { prebuilt: pkg(name, bad) }), 'body.prebuilt.metadata.version', code, kind);
    }
    expect((await send('DELETE', route('/prebuilts', id))).status).toBe(200);
  });
});

describe('repository configurations', () => {
  it('a new one refuses a name with a control character, a line separator or an override; one of any script round-trips', async () => {
    for (const [bad, code, kind] of REFUSED)
      expectRefused(
        await send('POST', '/prebuilts-repository/configs', { config: { name: bad, type: 'local', path: shelf } }),
        'body.config.name',
        code,
        kind,
      );
    const created = await send('POST', '/prebuilts-repository/configs', { config: { name: ZURICH, type: 'local', path: shelf } });
    expect([created.status, created.body]).toMatchObject([200, { name: ZURICH }]);
    const patched = await send('PATCH', route('/prebuilts-repository/configs', ZURICH), { config: { enabled: false } });
    expect([patched.status, patched.body]).toMatchObject([200, { name: ZURICH, enabled: false }]);
    expect((await send('DELETE', route('/prebuilts-repository/configs', ZURICH))).status).toBe(200);
  });
});

describe('accounts', () => {
  it('a username, first name or last name with a control character, a line separator or an override is refused, naming it', async () => {
    const account = (fields: Record<string, string>) => ({ account: { username: 'fine', password: 'password-123', ...fields } });
    for (const [bad, code, kind] of REFUSED) {
      expectRefused(await send('POST', '/user-management/accounts', account({ username: bad })), 'body.account.username', code, kind);
      expectRefused(await send('POST', '/user-management/accounts', account({ firstname: bad })), 'body.account.firstname', code, kind);
      expectRefused(await send('POST', '/user-management/accounts', account({ lastname: bad })), 'body.account.lastname', code, kind);
    }
    const created = await send('POST', '/user-management/accounts', account({ username: ZURICH, firstname: 'Zoë', lastname: '東京' }));
    expect(created.status).toBe(200);
    const id = (created.body as { data: { _id: string } }).data._id;
    expect(await send('GET', route('/user-management/accounts', id))).toMatchObject({ status: 200, body: { username: ZURICH } });
    for (const [bad, code, kind] of REFUSED)
      expectRefused(await send('PATCH', route('/authorization/accounts', id), { lastname: bad }), 'body.lastname', code, kind);
    expect((await send('PATCH', route('/authorization/accounts', id), { firstname: '', lastname: 'Zürich' })).status).toBe(200);
    expect(await platform.login(ZURICH, 'password-123')).toEqual(expect.any(String));
  });
});
