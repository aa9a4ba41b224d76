import { eventSubject } from '@nap/contracts';
import type { Caller } from '@nap/contracts';
import type { Bus, BusClient, BusEvent } from '@nap/bus';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { createLogger } from '@nap/telemetry';
import { eventually } from '@nap/testing';
import { Authenticator } from '../../gateway/src/auth/authenticator';

/**
 * What an attacker tries on what was added on 2026-12-05: custom roles (names read as a built-in
 * role's, revocation on every gateway — over a real nats-server in test/e2e/distributed.test.ts —
 * including a resolution that raced the change), the audit
 * trail of the new change routes (targets named, refusals recorded per thing asked for); and the
 * work one request can ask of the studio's event loop through the newest checks (schema patterns,
 * "did you mean" comparisons, the members a refusal names).
 */

type Failure = { code: string; message: string };
const getJobs = { provenance: 'OperationsManager', name: 'getJobs' };

describe('on one platform', () => {
  let platform: TestPlatform;
  let admin: string;

  const call = (method: string, route: string, token: string, body?: unknown) =>
    platform.http(method, route, { token, ...(body !== undefined ? { body } : {}) });

  beforeAll(async () => {
    platform = await startTestPlatform();
    admin = await platform.login();
  }, 60_000);

  afterAll(async () => {
    await platform?.stop();
  });

  it('refuses a custom role whose name reads as a built-in role: look-alike letters, full width, invisible characters', async () => {
    for (const [name, builtIn] of [
      ['\u0410dmin', 'admin'], // Cyrillic А
      ['adm\u0131n', 'admin'], // dotless ı
      ['\uff41\uff44\uff4d\uff49\uff4e', 'admin'], // full width
      ['admin\u200b', 'admin'], // zero-width space
      ['ADMIN\ufe0f', 'admin'], // variation selector
      ['\u0430uditor', 'auditor'],
      ['apiwr\u0456te', 'apiwrite'],
      ['\u039fPERATIONS', 'operations'], // Greek Ο
    ]) {
      const res = await call('POST', '/authorization/roles', admin, { role: { name, allowedMethods: [getJobs] } });
      expect({ name, status: res.status, body: res.body }).toMatchObject({
        name,
        status: 409,
        body: { code: 'ROLE_ALREADY_EXISTS', message: expect.stringContaining(`"${builtIn}"`) },
      });
    }
    // nor can a role be renamed so
    const made = await call('POST', '/authorization/roles', admin, { role: { name: 'job-readers', allowedMethods: [getJobs] } });
    expect(made.status).toBe(200);
    const id = (made.body as { data: { _id: string } }).data._id;
    const renamed = await call('PUT', `/authorization/roles/${id}`, admin, { role: { name: '\u0430dmin' } });
    expect({ status: renamed.status, code: (renamed.body as Failure).code }).toEqual({ status: 409, code: 'ROLE_ALREADY_EXISTS' });
    // names that only contain a built-in name, and names Object.prototype has, are ordinary names
    for (const name of ['admins-of-jobs', '__proto__', 'constructor']) {
      const res = await call('POST', '/authorization/roles', admin, { role: { name, allowedMethods: [getJobs] } });
      expect({ name, status: res.status }).toEqual({ name, status: 200 });
      expect((res.body as { data: { name: string } }).data.name).toBe(name);
    }
  });

  it('audits the deletion of a role with its name', async () => {
    const made = await call('POST', '/authorization/roles', admin, { role: { name: 'short-lived', allowedMethods: [getJobs] } });
    const id = (made.body as { data: { _id: string } }).data._id;
    const deleted = await call('DELETE', `/authorization/roles/${id}`, admin);
    expect(deleted.status).toBe(200);
    expect(await platform.auditRecordOf(deleted, admin)).toMatchObject({
      operation: 'admin.deleteRole',
      target: { kind: 'role', id, name: 'short-lived' },
    });
  });

  it('audits the creation of an integration as ipctl sends it with the integration named, and no secret', async () => {
    const model = await call('POST', '/integration-models', admin, {
      model: {
        openapi: '3.0.3',
        info: { title: 'Attack Pets', version: '1.0.0' },
        servers: [{ url: 'http://127.0.0.1:9/api' }],
        paths: { '/pets': { get: { operationId: 'listPets', responses: { '200': { description: 'ok' } } } } },
      },
    });
    expect(model.status).toBe(200);
    // as ipctl sends it: the model in properties.type, the settings in properties.properties
    const integration = await call('POST', '/integrations', admin, {
      properties: {
        name: 'attack-pets',
        model: '',
        type: 'Adapter',
        properties: {
          id: 'attack-pets',
          type: 'Attack Pets:1.0.0',
          properties: { authentication: { type: 'basic', username: 'u', password: 'integration-secret-123' } },
        },
      },
    });
    expect(integration.status).toBe(200);
    expect(JSON.stringify(integration.body)).not.toContain('integration-secret-123');
    const integrationRecord = await platform.auditRecordOf(integration, admin);
    expect(integrationRecord).toMatchObject({
      operation: 'admin.createIntegration',
      target: { kind: 'integration', id: 'attack-pets', name: 'attack-pets' },
    });
    expect(JSON.stringify(integrationRecord)).not.toContain('integration-secret-123');
  });

  it('audits the creation and the import of a profile (either body) with the profile named', async () => {
    for (const [route, body, profileId] of [
      ['/profiles', { properties: { id: 'attack-made', description: '' } }, 'attack-made'],
      ['/profiles/import', { properties: { id: 'attack-imported', description: '', launchDelay: 0, launchTimeout: 0 } }, 'attack-imported'],
      ['/profiles/import', { profile: { id: 'attack-imported-2', description: '' } }, 'attack-imported-2'],
    ] as const) {
      const res = await call('POST', route, admin, body);
      expect({ route, status: res.status }).toEqual({ route, status: 200 });
      expect(await platform.auditRecordOf(res, admin)).toMatchObject({ target: { kind: 'profile', id: profileId, name: profileId } });
    }
  });

  it('records a refused DELETE /json-forms/forms against each form asked for', async () => {
    const ids: string[] = [];
    for (const name of ['attack-form-1', 'attack-form-2']) {
      const res = await call('POST', '/json-forms/forms', admin, { name });
      expect(res.status).toBe(200);
      ids.push((res.body as { doc: { _id: string } }).doc._id);
    }
    const refused = await call('DELETE', '/json-forms/forms', admin, { ids: [...ids, 'no-such-form'] });
    expect({ status: refused.status, code: (refused.body as Failure).code }).toEqual({ status: 404, code: 'FORM_NOT_FOUND' });
    const requestId = refused.headers.get('x-request-id') ?? '';
    const found = await call('GET', `/audit?equals[requestId]=${encodeURIComponent(requestId)}`, admin);
    const records = (found.body as { results: { target: { kind: string; id?: string }; outcome: { status: number } }[] }).results;
    expect(records.map((r) => r.target.id).sort()).toEqual([...ids, 'no-such-form'].sort());
    expect(records.every((r) => r.outcome.status === 404)).toBe(true);
    // nothing was deleted; a deletion of both names each
    const deleted = await call('DELETE', '/json-forms/forms', admin, { ids });
    expect(deleted).toMatchObject({ status: 200, body: { n: 2 } });
    const after = await call('GET', `/audit?equals[requestId]=${encodeURIComponent(deleted.headers.get('x-request-id') ?? '')}`, admin);
    expect((after.body as { results: { target: { id?: string; name?: string } }[] }).results.map((r) => r.target.name).sort()).toEqual([
      'attack-form-1',
      'attack-form-2',
    ]);
  });

  /** A transformation whose outgoing schema `open` declares `declared` and writes `/<member>` of it for each of `writes`. */
  const writing = (name: string, outgoing: Record<string, unknown>, writes: string[]) => ({
    name,
    incoming: [{ $id: 'site', type: 'string' }],
    outgoing: [{ $id: 'open', type: 'object', ...outgoing }],
    steps: [
      { id: 1, type: 'method', library: 'String', method: 'toUpperCase', args: [null] },
      {
        id: 2,
        type: 'assign',
        from: { location: 'incoming', name: 'site', ptr: '' },
        to: { location: 'method', name: 1, ptr: '/args/0/value' },
      },
      ...writes.map((member, i) => ({
        id: i + 3,
        type: 'assign',
        from: { location: 'method', name: 1, ptr: '/return' },
        to: { location: 'outgoing', name: 'open', ptr: `/${member}` },
      })),
    ],
    functions: [],
  });
  type Check = { isValid: boolean; errors: { code: string; message: string; path: string }[] };

  it("runs an outgoing schema's patternProperties on the linear-time engine: a pattern that backtracks does not hold the event loop", async () => {
    // backtracking, `^(a+)+$` against 40 `a`s and a `!` takes hours, and every request of the process waits
    const doc = writing('attack-backtracking', { additionalProperties: false, patternProperties: { '^(a+)+$': {} } }, [
      `${'a'.repeat(40)}!`,
      'a'.repeat(40),
    ]);
    const res = await call('POST', '/transformations/validate', admin, doc);
    expect(res.status).toBe(200);
    // the pattern still says which names it takes: the first is undeclared, the second is the pattern's
    expect((res.body as Check).errors.map((e) => [e.code, e.path])).toEqual([['UNDECLARED_OUTGOING_MEMBER', '/steps/2/to/ptr']]);
  });

  it('names at most ten declared members in each refusal of an undeclared one, however many the schema declares', async () => {
    // 2,000 assigns into a closed schema of 2,000 members named every member in each message: some 50 MB for a 400 kB document
    const properties = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`member${i}`, { type: 'string' }]));
    const writes = Array.from({ length: 2000 }, (_, i) => `other${i}`);
    const res = await call(
      'POST',
      '/transformations/validate',
      admin,
      writing('attack-wide-closed', { properties, additionalProperties: false }, writes),
    );
    expect(res.status).toBe(200);
    const { errors } = res.body as Check;
    expect(errors).toHaveLength(2000);
    expect(errors[0]?.message).toMatch(/it allows no other member than "member0", .*"member9" and 1990 more$/);
  });

  it('answers at most 20 misspelled members of a run, and bounds the comparisons when the transformation and the body are wide', async () => {
    const incoming = Array.from({ length: 3000 }, (_, i) => ({ $id: `v${String(i).padStart(7, '0')}`, type: 'string' }));
    const made = await call('POST', '/transformations', admin, {
      name: 'attack-wide',
      incoming,
      outgoing: [{ $id: 'label', type: 'string' }],
      steps: [],
      functions: [],
    });
    expect(made.status).toBe(200);
    // 3,000 members each two edits from a different incoming: 9 million comparisons, half a minute of the event loop
    const values = Object.fromEntries(incoming.map((_, i) => [`w${String(i).padStart(7, '0')}x`, 0]));
    const res = await call('POST', '/automation-studio/json-forms/runTransformation/attack-wide', admin, { incoming: values });
    expect(res.status).toBe(400);
    const details = (res.body as { code: string; details: { member: string }[] }).details;
    expect((res.body as Failure).code).toBe('VALIDATION_FAILED');
    expect(details.length).toBeGreaterThan(0);
    expect(details.length).toBeLessThanOrEqual(20);
    expect(details[0]).toMatchObject({ member: 'body.incoming.w0000000x' });
  });
});

describe("a gateway's cache of callers and the events that revoke them", () => {
  /** An authenticator on a bus whose admin events the test sends, and whose admin service answers when the test says. */
  function rig() {
    const handlers: ((event: BusEvent) => void)[] = [];
    const bus = {
      consumeEvents: async (_filter: string, handler: (event: BusEvent) => void) => {
        handlers.push(handler);
        return { unsubscribe: async () => undefined };
      },
      onStatus: () => undefined,
    } as unknown as Bus;
    const answers: ((caller: Caller) => void)[] = [];
    const client = {
      call: () =>
        new Promise((resolve) => {
          answers.push((caller) => resolve({ body: caller }));
        }),
    } as unknown as BusClient;
    const auth = new Authenticator({ bus, client, logger: createLogger({ name: 'attack', level: 'silent' }) });
    const send = (entity: string, id: string) => {
      for (const handler of handlers) handler({ subject: eventSubject('admin', entity, id, 'changed') } as BusEvent);
    };
    return { auth, answers, send };
  }
  const bob = (operations: string[]): Caller => ({ id: 'bob-id', username: 'bob', roles: [], groups: ['g1'], operations });
  const credentials = { kind: 'basic', username: 'bob', password: 'bob-password-1234' } as const;

  it('does not keep a caller resolved before a group change it raced, nor hand it to requests made after the change', async () => {
    const { auth, answers, send } = rig();
    await auth.start();
    const first = auth.authenticate(credentials);
    await eventually('the admin service is asked', () => answers.length === 1, { timeoutMs: 5_000 });
    // the role is taken from bob's group while the admin service's answer (read before) is on its way
    send('group', 'g1');
    const second = auth.authenticate(credentials);
    answers[0]?.(bob(['workflow.getJobs']));
    expect((await first).operations).toEqual(['workflow.getJobs']);
    // a request made after the event is not answered from the resolution that began before it
    await eventually('the admin service is asked again', () => answers.length === 2, { timeoutMs: 5_000 });
    answers[1]?.(bob([]));
    expect((await second).operations).toEqual([]);
    expect((await auth.authenticate(credentials)).operations).toEqual([]);
    expect(answers).toHaveLength(2);
    await auth.stop();
  });

  it('does not bring back a session revoked while its resolution was on its way', async () => {
    const { auth, answers, send } = rig();
    await auth.start();
    // a session's end is an event on it; the caller of a Basic login is forgotten by its account's
    const first = auth.authenticate(credentials);
    await eventually('the admin service is asked', () => answers.length === 1, { timeoutMs: 5_000 });
    send('account', 'bob-id');
    answers[0]?.(bob(['workflow.getJobs']));
    await first;
    const again = auth.authenticate(credentials);
    await eventually('the admin service is asked again', () => answers.length === 2, { timeoutMs: 5_000 });
    answers[1]?.(bob([]));
    expect((await again).operations).toEqual([]);
    await auth.stop();
  });
});

/** What a create route answers: the record under `data` (an account's `_id` on its own for some routes). */
