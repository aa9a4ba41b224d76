import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

/**
 * `/indexes`: what each service declares, compared with its store and created on demand, through
 * HTTP against the embedded stores of a whole platform (the same comparison runs on MongoDB in the
 * store contract suite).
 */

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
});

afterAll(async () => {
  await platform?.stop();
});

type Spec = { name: string; keys: Record<string, 1 | -1>; unique?: boolean; sparse?: boolean };
type Status = {
  collection: string;
  service: string;
  missing: Spec[];
  misnamed: { expected: Spec; actual: Spec }[];
  external: Spec[];
  indexed: Spec[];
};

function store(service: 'mop' | 'studio' | 'admin') {
  const s = platform.stores.get(service);
  if (s === undefined) throw new Error(`no ${service} store`);
  return s;
}

describe('indexes', () => {
  it('lists what every running service declares, by service and collection', async () => {
    const res = await platform.http('GET', '/indexes', { token });
    expect(res.status).toBe(200);
    const { results, total } = res.body as { results: { service: string; collection: string; indexes: Spec[] }[]; total: number };
    expect(total).toBe(results.length);
    const keyOf = (r: { service: string; collection: string }) => `${r.service}.${r.collection}`;
    expect(results.map(keyOf)).toEqual(
      expect.arrayContaining([
        'admin.accounts',
        'admin.external_links',
        'admin.prebuilts',
        'mop.command_templates',
        'studio.workflows',
        'workflow.jobs',
        'gateway-devices.devices',
      ]),
    );
    expect(results.find((r) => keyOf(r) === 'mop.command_templates')?.indexes).toEqual([
      { name: 'name_1', keys: { name: 1 }, unique: true, sparse: false },
    ]);
  });

  it('reports a healthy collection as indexed, then missing, misnamed and external ones, and creates what lacks', async () => {
    const healthy = await platform.http('GET', '/indexes/command_templates/status', { token });
    expect(healthy.status).toBe(200);
    expect(healthy.body).toMatchObject({
      collection: 'command_templates',
      service: 'mop',
      missing: [],
      misnamed: [],
      external: [],
      indexed: [{ name: 'name_1' }],
    });

    // the runs collection loses one index, gets one under another name, and one nobody declared
    const runs = store('mop').collection('template_runs');
    expect(await runs.dropIndex('started_-1')).toBe(true);
    expect(await runs.dropIndex('devices_1')).toBe(true);
    await runs.createIndexes([
      { name: 'by_devices', keys: { devices: 1 } },
      { name: 'operator_extra', keys: { note: 1 } },
    ]);

    const broken = (await platform.http('GET', '/indexes/mop.template_runs/status', { token })).body as Status;
    expect(broken.missing.map((s) => s.name)).toEqual(['started_-1']);
    expect(broken.misnamed).toEqual([
      {
        expected: expect.objectContaining({ name: 'devices_1', keys: { devices: 1 } }),
        actual: expect.objectContaining({ name: 'by_devices' }),
      },
    ]);
    expect(broken.external.map((s) => s.name)).toEqual(['operator_extra']);
    expect(broken.indexed.map((s) => s.name)).toEqual(['template_1_started_-1']);

    const created = await platform.http('POST', '/indexes/template_runs', { token });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ collection: 'template_runs', service: 'mop', unchanged: 1, changed: 2, total: 3, running: 0 });

    const fixed = (await platform.http('GET', '/indexes/template_runs/status', { token })).body as Status;
    expect(fixed).toMatchObject({ missing: [], misnamed: [] });
    expect(fixed.indexed.map((s) => s.name).sort()).toEqual(['devices_1', 'started_-1', 'template_1_started_-1']);
    // an index nobody declared is the operator's: left alone
    expect(fixed.external.map((s) => s.name)).toEqual(['operator_extra']);
    expect((await runs.listIndexes()).map((i) => i.name).sort()).toEqual([
      'devices_1',
      'operator_extra',
      'started_-1',
      'template_1_started_-1',
    ]);

    const again = await platform.http('POST', '/indexes/template_runs', { token });
    expect(again.body).toMatchObject({ unchanged: 3, changed: 0, total: 3 });
  });

  it('answers 404 for a collection nobody declares and for an unknown service prefix', async () => {
    const res = await platform.http('GET', '/indexes/no_such_collection/status', { token });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'INDEX_COLLECTION_NOT_FOUND' });
    expect((res.body as { message: string }).message).toContain('no_such_collection');
    expect((await platform.http('POST', '/indexes/no_such_collection', { token })).status).toBe(404);
    expect((await platform.http('GET', '/indexes/mop.workflows/status', { token })).status).toBe(404);
  });

  it('refuses callers without the admin role', async () => {
    expect((await platform.http('GET', '/indexes')).status).toBe(401);
  });
});
