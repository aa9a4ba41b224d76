import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually, task, workflowDocument } from '@nap/testing';

/**
 * Members named `__proto__`, `constructor`, `prototype` (and other names Object.prototype has) in
 * the objects users send: each round-trips as an ordinary member or is refused with 400 naming it;
 * none is dropped unseen, and none reaches Object.prototype.
 */
let platform: TestPlatform;
let admin: string;

/** An object whose own members are `json`'s, `__proto__` included (an object literal would set the prototype instead). */
function own<T = Record<string, unknown>>(json: string): T {
  return JSON.parse(json) as T;
}

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
}, 60_000);

afterAll(async () => {
  await platform?.stop();
});

afterEach(() => {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

describe('device variables', () => {
  it('a variable named constructor, prototype or toString round-trips; one named __proto__ is refused naming it', async () => {
    const variables = own(
      '{"constructor": "c", "prototype": "p", "toString": "t", "hasOwnProperty": 7, "gw_port": 22, "nested": {"__proto__": {"polluted": "yes"}, "constructor": "n"}}',
    );
    const created = await platform.http('POST', '/gw/createInventoryDevice', { token: admin, body: { name: 'proto-device', variables } });
    expect({ status: created.status, body: created.body }).toMatchObject({ status: 200, body: {} });
    const got = await platform.http('POST', '/gw/getInventoryDevice', { token: admin, body: { name: 'proto-device' } });
    expect(got.status).toBe(200);
    const seen = (got.body as { variables: Record<string, unknown> }).variables;
    expect(Object.getPrototypeOf(seen)).toBe(Object.prototype);
    expect(Object.keys(seen).sort()).toEqual(['constructor', 'gw_port', 'hasOwnProperty', 'nested', 'prototype', 'toString']);
    expect(seen).toMatchObject({ constructor: 'c', prototype: 'p', toString: 't', hasOwnProperty: 7, gw_port: 22 });
    const nested = seen.nested as Record<string, unknown>;
    expect(Object.keys(nested).sort()).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(nested, '__proto__')?.value).toEqual({ polluted: 'yes' });

    // an update sets and removes them as any other
    const changed = await platform.http('POST', '/gw/createInventoryDevice', {
      token: admin,
      body: { name: 'proto-device', variables: own('{"prototype": null, "constructor": "c2"}') },
    });
    expect({ status: changed.status, body: changed.body }).toMatchObject({ status: 200, body: {} });
    const again = (await platform.http('POST', '/gw/getInventoryDevice', { token: admin, body: { name: 'proto-device' } })).body as {
      variables: Record<string, unknown>;
    };
    expect(Object.keys(again.variables).sort()).toEqual(['constructor', 'gw_port', 'hasOwnProperty', 'nested', 'toString']);
    expect(again.variables.constructor).toBe('c2');

    // the store's member paths cannot hold __proto__: refused with its name, not dropped unseen
    for (const name of ['proto-device', 'proto-device-new']) {
      const refused = await platform.http('POST', '/gw/createInventoryDevice', {
        token: admin,
        body: { name, variables: own('{"__proto__": {"polluted": "yes"}, "a": 1}') },
      });
      expect(refused).toMatchObject({
        status: 400,
        body: {
          code: 'VALIDATION_FAILED',
          details: [{ member: 'body.variables.__proto__', message: expect.stringContaining('reserved') }],
        },
      });
    }
    expect((await platform.http('POST', '/gw/getInventoryDevice', { token: admin, body: { name: 'proto-device-new' } })).status).toBe(404);
  });
});

type Job = { _id: string; status: string; variables: Record<string, unknown>; tasks: Record<string, { variables?: { error?: unknown } }> };

async function workflow(name: string, tasks: Record<string, ReturnType<typeof task>>): Promise<void> {
  const ids = Object.keys(tasks);
  const edges: [string, string][] = [['workflow_start', ids[0] ?? 'workflow_end']];
  ids.forEach((id, i) => edges.push([id, ids[i + 1] ?? 'workflow_end']));
  const doc = workflowDocument(name, tasks, edges, { inputSchema: { type: 'object' } });
  const res = await platform.http('POST', '/automation-studio/automations', { token: admin, body: { automation: doc } });
  if (res.status !== 200) throw new Error(`workflow ${name}: ${res.status} ${JSON.stringify(res.body)}`);
}

async function ran(name: string, variables: Record<string, unknown>): Promise<Job> {
  const res = await platform.http('POST', '/operations-manager/jobs/start', {
    token: admin,
    body: { workflow: name, options: { variables } },
  });
  if (res.status !== 200) throw new Error(`start ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  const id = (res.body as { data: { _id: string } }).data._id;
  return eventually(
    `job ${id} ended`,
    async () => {
      const body = (await platform.http('GET', `/operations-manager/jobs/${id}`, { token: admin })).body as { data?: Job } & Job;
      const job = body.data ?? body;
      return ['complete', 'error', 'canceled'].includes(job.status) && job;
    },
    { timeoutMs: 20_000 },
  );
}

/** The own member `key` of `value` (undefined when it is only inherited or absent). */
function ownMember(value: unknown, key: string): unknown {
  return Object.getOwnPropertyDescriptor(value, key)?.value;
}

describe('workflow tasks', () => {
  it('merge, deepmerge and a childJob keep members named __proto__ and constructor', async () => {
    await workflow('proto-child', {
      c1: task('newVariable', { name: 'got', value: '$var.job.__proto__' }),
      c2: task('newVariable', { name: 'gotCtor', value: '$var.job.constructor' }),
    });
    await workflow('proto-parent', {
      m1: task(
        'merge',
        {
          data_to_merge: [
            { key: '__proto__', value: { task: 'job', variable: 'obj' } },
            { key: 'x', value: 1 },
          ],
        },
        { merged_object: '$var.job.merged' },
      ),
      m2: task(
        'deepmerge',
        {
          data_to_merge: [
            own('{"__proto__": {"a": 1}, "k": {"__proto__": {"b": 1}}}'),
            own('{"__proto__": {"c": 2}, "k": {"__proto__": {"d": 2}}}'),
          ],
        },
        { merged_object: '$var.job.deep' },
      ),
      m3: task(
        'deepmerge',
        {
          data_to_merge: [
            { key: '__proto__', value: { task: 'job', variable: 'obj' } },
            { key: '__proto__', value: { task: 'job', variable: 'more' } },
          ],
        },
        { merged_object: '$var.job.deepKeyed' },
      ),
      cj: task(
        'childJob',
        {
          task: '',
          workflow: 'proto-child',
          variables: own('{"__proto__": {"polluted": "child"}, "constructor": "c", "x": 1}'),
          data_array: '',
          transformation: '',
          loopType: '',
        },
        { job_details: '$var.job.single' },
        { type: 'operation' },
      ),
      loop: task(
        'childJob',
        {
          task: '',
          workflow: 'proto-child',
          variables: own('{"__proto__": {"polluted": "base"}}'),
          data_array: [own('{"constructor": "c"}'), own('{"__proto__": {"polluted": "item"}}')],
          transformation: '',
          loopType: 'sequential',
        },
        { job_details: '$var.job.looped' },
        { type: 'operation' },
      ),
    });
    const job = await ran('proto-parent', own('{"obj": {"__proto__": {"polluted": "yes"}, "x": 1}, "more": {"y": 2}}'));
    expect({ status: job.status, errors: Object.values(job.tasks).map((t) => t.variables?.error ?? '') }).toEqual({
      status: 'complete',
      errors: Object.values(job.tasks).map(() => ''),
    });
    const v = job.variables;
    // merge: the key given is a member of the merged object
    expect(Object.keys(v.merged as object)).toEqual(['__proto__', 'x']);
    expect(ownMember(v.merged, '__proto__')).toEqual(own('{"__proto__": {"polluted": "yes"}, "x": 1}'));
    // deepmerge: merged at the top as below
    expect(Object.keys(v.deep as object)).toEqual(['__proto__', 'k']);
    expect(ownMember(v.deep, '__proto__')).toEqual({ a: 1, c: 2 });
    expect(ownMember((v.deep as { k: unknown }).k, '__proto__')).toEqual({ b: 1, d: 2 });
    expect(ownMember(v.deepKeyed, '__proto__')).toMatchObject({ x: 1, y: 2 });
    // the child gets the variable named __proto__ whether it runs once or in a loop
    const single = v.single as { variables: Record<string, unknown> };
    expect(single.variables).toMatchObject({ got: { polluted: 'child' }, gotCtor: 'c', x: 1 });
    expect(ownMember(single.variables, '__proto__')).toEqual({ polluted: 'child' });
    const looped = v.looped as { variables: Record<string, unknown> }[];
    expect(looped.map((c) => c.variables.got)).toEqual([{ polluted: 'base' }, { polluted: 'item' }]);
    expect(looped.map((c) => c.variables.gotCtor)).toEqual(['c', undefined]);
  });
});

/** 400 `VALIDATION_FAILED` naming `member` and `value` in its one detail and its message. */
function expectReserved(res: { status: number; body: unknown }, member: string, value: string): void {
  expect({ status: res.status, body: res.body }).toMatchObject({
    status: 400,
    body: { code: 'VALIDATION_FAILED', message: expect.stringContaining(`${member} "${value}" is reserved`), details: [{ member }] },
  });
}

describe('ids and names a document is kept by', () => {
  it('__proto__, constructor and prototype are refused as the id or name of each kind, naming the member and the value', async () => {
    const send = (method: string, route: string, body: unknown) => platform.http(method, route, { token: admin, body });
    // studio: the _id a document brings is kept (export/import round trips), so a reserved one is refused, not replaced
    expectReserved(await send('POST', '/transformations', { name: 'proto-jst', _id: '__proto__' }), 'body._id', '__proto__');
    const wf = workflowDocument('proto-wf', {}, [['workflow_start', 'workflow_end']]);
    expectReserved(
      await send('POST', '/automation-studio/automations', { automation: { ...wf, _id: 'constructor' } }),
      'body.automation._id',
      'constructor',
    );
    expectReserved(
      await send('POST', '/automation-studio/templates', { template: { name: 'proto-template', type: 'jinja2', _id: 'prototype' } }),
      'body.template._id',
      'prototype',
    );
    expectReserved(
      await send('POST', '/automation-studio/component-groups', { componentGroup: { name: 'proto-group', _id: '__proto__' } }),
      'body.componentGroup._id',
      '__proto__',
    );
    expectReserved(
      await send('POST', '/automation-studio/projects/import', { project: { name: 'proto-project', _id: 'constructor', components: [] } }),
      'body.project._id',
      'constructor',
    );
    // workflow service: imports keep ids; refused per item, the others imported
    const automations = await send('PUT', '/operations-manager/automations', {
      automations: [
        { name: 'proto-automation', _id: '__proto__' },
        { name: 'proto-triggered', triggers: [{ name: 'proto-trigger', type: 'manual', _id: 'prototype' }] },
      ],
      options: {},
    });
    expect(automations.body).toMatchObject({
      imported: [
        { success: false, message: expect.stringContaining('body.automations[0]._id "__proto__" is reserved') },
        { success: false, message: expect.stringContaining('body.automations[1].triggers[0]._id "prototype" is reserved') },
      ],
    });
    const catalog = await send('POST', '/automation_catalog/automations/import', {
      automations: [{ name: 'proto-catalog', _id: 'constructor' }],
      options: {},
    });
    expect(catalog.body).toMatchObject({
      imported: [{ success: false, message: expect.stringContaining('_id "constructor" is reserved') }],
    });
    // admin: adapters and integrations are kept by name, profiles by id, repositories by name in the profile
    const adapter = await send('POST', '/adapters', {
      properties: {
        name: 'constructor',
        type: 'Adapter',
        model: '@nap/adapter-http',
        properties: { id: 'constructor', type: 'HTTP', brokers: [], groups: [], properties: {} },
      },
    });
    expectReserved(adapter, 'body.properties.name', 'constructor');
    expectReserved(
      await send('POST', '/integrations', { properties: { name: '__proto__', model: 'none:1' } }),
      'body.properties.name',
      '__proto__',
    );
    expectReserved(await send('POST', '/profiles', { properties: { id: 'prototype' } }), 'body.properties.id', 'prototype');
    const repository = await send('POST', '/prebuilts-repository/configs', {
      config: { name: 'constructor', type: 'local', path: '/tmp' },
    });
    expect(repository).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED', details: [{ member: 'body.config.name' }] } });
    // devices and their groups are kept by name
    expectReserved(await send('POST', '/gw/createInventoryDevice', { name: '__proto__' }), 'body.name', '__proto__');
    expectReserved(
      await send('POST', '/gw/createInventoryDevice', { name: 'proto-grouped', groups: ['edge', 'constructor'] }),
      'body.groups[1]',
      'constructor',
    );
    // nothing of it was stored
    for (const route of [
      '/transformations/__proto__',
      '/automation-studio/templates/prototype',
      '/adapters/constructor',
      '/profiles/prototype',
    ])
      expect({ route, status: (await platform.http('GET', route, { token: admin })).status }).toEqual({ route, status: 404 });
    expect((await send('POST', '/gw/getInventoryDevice', { name: 'proto-grouped' })).status).toBe(404);
  });

  it('a document an earlier release stored under such an id can still be read and deleted', async () => {
    const created = await platform.http('POST', '/transformations', { token: admin, body: { name: 'proto-legacy-source' } });
    expect(created.status).toBe(200);
    const store = platform.stores.get('studio');
    if (store === undefined) throw new Error('the platform has no studio store');
    // as an earlier release stored it: the document as this one stores it, under the id it kept then
    await store
      .collection('transformations')
      .insertOne({ ...(created.body as Record<string, unknown>), _id: '__proto__', name: 'proto-legacy' });
    const got = await platform.http('GET', '/transformations/__proto__', { token: admin });
    expect({ status: got.status, body: got.body }).toMatchObject({ status: 200, body: { _id: '__proto__', name: 'proto-legacy' } });
    const ran = await platform.http('POST', '/transformations/__proto__', { token: admin, body: { incoming: {} } });
    expect(ran.status).toBe(200);
    expect((await platform.http('DELETE', '/transformations/__proto__', { token: admin })).status).toBe(204);
    expect((await platform.http('GET', '/transformations/__proto__', { token: admin })).status).toBe(404);
  });
});
