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
