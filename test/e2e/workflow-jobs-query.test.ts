import type { ImportResult, JobDocument, JobList, JobPage } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually, task, workflowDocument } from '@nap/testing';
import { FIXTURES_PRESENT, fixtureAutomations, warnFixturesAbsent } from '../../services/workflow/test/fixtures';

/**
 * The query language of GET /operations-manager/jobs and POST /workflow_engine/getJobList/:status,
 * injection attempts included, group visibility of jobs, and the automation routes
 * (POST /automation_catalog/automations/import, PUT and POST /operations-manager/automations).
 */

let platform: TestPlatform;
let admin: string;
const jobIds: string[] = [];
let groupId: string;
let insider: string;
let outsider: string;

async function call(method: string, route: string, body?: unknown, token = admin) {
  return platform.http(method, route, { token, ...(body !== undefined ? { body } : {}) });
}

async function page(query: string, token = admin): Promise<JobPage> {
  const res = await call('GET', `/operations-manager/jobs?${query}`, undefined, token);
  if (res.status !== 200) throw new Error(`GET jobs?${query} answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as JobPage;
}

async function account(username: string, groups: string[]): Promise<string> {
  const res = await call('POST', '/user-management/accounts', {
    account: { username, password: 'password-123', firstname: 'A', lastname: 'B', email: `${username}@example.net`, groups },
  });
  expect(res.status).toBe(200);
  return platform.login(username, 'password-123');
}

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
  const group = await call('POST', '/user-management/groups', { group: { name: 'wf-query-team' } });
  groupId = (group.body as { data: { _id: string } }).data._id;
  expect((await call('PUT', `/user-management/groups/${groupId}/roles`, { roles: ['operations'] })).status).toBe(200);
  const others = await call('POST', '/user-management/groups', { group: { name: 'wf-query-others' } });
  const othersId = (others.body as { data: { _id: string } }).data._id;
  expect((await call('PUT', `/user-management/groups/${othersId}/roles`, { roles: ['operations'] })).status).toBe(200);
  insider = await account('wf-insider', [groupId]);
  outsider = await account('wf-outsider', [othersId]);

  const wf = (name: string, ok: boolean) =>
    workflowDocument(
      name,
      {
        a1: task(
          'query',
          { pass_on_null: false, query: ok ? 'n' : 'absent', obj: '$var.job.data' },
          { return_data: null },
          { type: 'operation' },
        ),
      },
      [
        ['workflow_start', 'a1'],
        ['a1', 'workflow_end'],
      ],
    );
  for (const [name, ok] of [
    ['q-alpha', true],
    ['q-beta', false],
  ] as const) {
    expect((await call('POST', '/automation-studio/automations', { automation: wf(name, ok) })).status).toBe(200);
  }
  for (let i = 0; i < 30; i += 1) {
    const name = i % 3 === 2 ? 'q-beta' : 'q-alpha';
    const groups = i < 4 ? [groupId] : [];
    const res = await call('POST', `/workflow_engine/startJobWithOptions/${name}`, {
      options: { description: `job number ${i}`, variables: { data: { n: i } }, groups },
    });
    expect(res.status).toBe(200);
    jobIds.push((res.body as JobDocument)._id);
  }
  await eventually(
    'the end of the 30 seed jobs',
    async () => (await page('equals[status]=running&limit=1')).total === 0 && (await page('limit=1')).total >= 30,
    { timeoutMs: 20_000 },
  );
});

afterAll(async () => {
  await platform.stop();
});

describe('GET /operations-manager/jobs', () => {
  it('answers a page with the default limit of 25 and page links that are left out at the ends', async () => {
    const first = await page('');
    expect(first).toMatchObject({
      total: 30,
      currentPageSize: 25,
      skip: 0,
      limit: 25,
      nextPageSkip: 25,
      hints: [],
    });
    expect(first).not.toHaveProperty('previousPageSkip');
    const last = await page('skip=25');
    expect(last).toMatchObject({ currentPageSize: 5, skip: 25, previousPageSkip: 0 });
    expect(last).not.toHaveProperty('nextPageSkip');
    const ids = [...first.items, ...last.items].map((j) => j._id);
    expect(new Set(ids).size).toBe(30);
    // newest first by default
    const starts = first.items.map((j) => (j.metrics as { start_time: number }).start_time);
    expect([...starts].sort((a, b) => b - a)).toEqual(starts);
    expect(first.items.every((j) => !('runAs' in j))).toBe(true);
  });

  it('clamps the limit to the maximum and says so in hints', async () => {
    const res = await page('limit=100000');
    expect(res.limit).toBe(500);
    expect(res.hints[0]).toContain('500');
  });

  it('filters with equals, in, not-in, contains, starts-with, ends-with and comparisons', async () => {
    expect((await page('equals[status]=error')).total).toBe(10);
    expect((await page('equals[status]=complete&equals[name]=q-alpha')).total).toBe(20);
    expect((await page('in[status]=error,canceled')).total).toBe(10);
    expect((await page('not-in[name]=q-beta')).total).toBe(20);
    expect((await page('contains[description]=NUMBER 1')).total).toBe(11);
    expect((await page('starts-with[name]=q-b')).total).toBe(10);
    expect((await page('ends-with[description]=number 7')).total).toBe(1);
    expect((await page('equals[variables.data.n]=7')).total).toBe(1);
    expect((await page('gte[variables.data.n]=25')).total).toBe(5);
    expect((await page('gt[variables.data.n]=25&lt[variables.data.n]=28')).total).toBe(2);
    expect((await page('lte[variables.data.n]=1')).total).toBe(2);
  });

  it('sorts, orders, skips and projects', async () => {
    const asc = await page('sort=variables.data.n&order=1&limit=3&include=name,variables');
    expect(asc.items.map((j) => (j.variables as { data: { n: number } }).data.n)).toEqual([0, 1, 2]);
    expect(Object.keys(asc.items[0] ?? {}).sort()).toEqual(['_id', 'name', 'variables']);
    const desc = await page('sort=variables.data.n&order=-1&skip=1&limit=2&exclude=tasks,transitions');
    expect(desc.items.map((j) => (j.variables as { data: { n: number } }).data.n)).toEqual([28, 27]);
    expect(desc.items[0]).not.toHaveProperty('tasks');
    expect(desc.items[0]).toHaveProperty('status');
  });

  it('pages with after (keyset) through the same jobs in the same order as skip, for any sort and filter', async () => {
    for (const query of [
      '',
      'equals[status]=complete',
      'sort=name&order=1',
      'sort=metrics.run_time&order=-1',
      'in[status]=error,canceled&sort=status',
    ]) {
      const bySkip: string[] = [];
      for (let skip = 0; ; skip += 7) {
        const res = await page(`${query}&limit=7&skip=${skip}&include=_id`);
        bySkip.push(...res.items.map((j) => j._id as string));
        if (res.nextPageSkip === undefined) break;
      }
      const byAfter: string[] = [];
      let after: string | null | undefined;
      for (let i = 0; i < 20; i += 1) {
        const res = await page(`${query}&limit=7&include=_id${after ? `&after=${encodeURIComponent(after)}` : ''}`);
        expect(res.totalExact).toBe(true);
        byAfter.push(...res.items.map((j) => j._id as string));
        after = res.nextPageAfter;
        if (after === null) break;
      }
      expect({ query, ids: byAfter }).toEqual({ query, ids: bySkip });
      expect(new Set(byAfter).size).toBe((await page(query)).total);
    }
  });

  it('refuses an after token of another sort, or one it did not make, with 400 JOB_QUERY_INVALID', async () => {
    const first = await page('limit=5');
    expect(typeof first.nextPageAfter).toBe('string');
    for (const query of [
      `sort=name&after=${encodeURIComponent(first.nextPageAfter as string)}`,
      `order=1&after=${encodeURIComponent(first.nextPageAfter as string)}`,
      'after=not-a-token',
    ]) {
      const res = await call('GET', `/operations-manager/jobs?${query}`);
      expect({ query, status: res.status, code: (res.body as { code: string }).code }).toEqual({
        query,
        status: 400,
        code: 'JOB_QUERY_INVALID',
      });
    }
  });

  it('refuses after on the task list, which pages with skip', async () => {
    const res = await call('GET', '/operations-manager/tasks?after=abc');
    expect({ status: res.status, code: (res.body as { code: string }).code }).toEqual({ status: 400, code: 'JOB_QUERY_INVALID' });
  });

  it('says in hints when a sort is not served by an index, and still sorts by it', async () => {
    const res = await page('sort=variables.data.n&order=1&limit=2&include=variables');
    expect(res.items.map((j) => (j.variables as { data: { n: number } }).data.n)).toEqual([0, 1]);
    expect(res.hints.join(' ')).toContain('sort variables.data.n is not served by an index');
    expect((await page('sort=name')).hints).toEqual([]);
  });

  it('takes q as a JSON expression with and, or and not, or as free text', async () => {
    const q = (expr: unknown) => page(`q=${encodeURIComponent(JSON.stringify(expr))}`);
    expect((await q({ and: [{ equals: { name: 'q-alpha' } }, { lt: { 'variables.data.n': 6 } }] })).total).toBe(4);
    expect((await q({ or: [{ equals: { 'variables.data.n': 0 } }, { equals: { 'variables.data.n': 29 } }] })).total).toBe(2);
    expect((await q({ not: { equals: { status: 'complete' } } })).total).toBe(10);
    expect((await q({ and: [{ not: { in: { name: ['q-beta'] } } }, { gte: { 'variables.data.n': 27 } }] })).total).toBe(2);
    expect((await page('q=number 2')).total).toBe(11);
  });

  it('dereferences ancestors', async () => {
    const res = await page(`equals[_id]=${jobIds[0] as string}&dereference=ancestors`);
    expect(res.items[0]?.ancestors).toEqual([]);
    const bad = await call('GET', '/operations-manager/jobs?dereference=everything');
    expect(bad.status).toBe(400);
  });

  it('never lets a user value reach the store as an operator', async () => {
    // operator-looking field names are refused
    for (const query of [
      'equals[$where]=1',
      'equals[name.$ne]=x',
      'sort=$natural',
      'include=$where',
      'gt[$expr]=1',
      'equals[runAs.roles]=admin',
    ]) {
      const res = await call('GET', `/operations-manager/jobs?${query}`);
      expect({ query, status: res.status, code: (res.body as { code: string }).code }).toEqual({
        query,
        status: 400,
        code: 'JOB_QUERY_INVALID',
      });
    }
    // operator-looking values are data: they match nothing, they do not widen the query
    expect((await page(`equals[name]=${encodeURIComponent('{"$ne":null}')}`)).total).toBe(0);
    expect((await page(`contains[name]=${encodeURIComponent('.*')}`)).total).toBe(0);
    expect((await page(`in[status]=${encodeURIComponent('$ne,$gt')}`)).total).toBe(0);
    const q = (expr: unknown) => call('GET', `/operations-manager/jobs?q=${encodeURIComponent(JSON.stringify(expr))}`);
    for (const expr of [
      { $where: 'sleep(100)' },
      { name: { $ne: null } },
      { equals: { name: { $ne: null } } },
      { equals: { $where: '1' } },
      { or: { $gt: '' } },
      { in: { status: { $exists: true } } },
    ]) {
      const res = await q(expr);
      expect({ expr, status: res.status }).toEqual({ expr, status: 400 });
    }
    // nested brackets do not build objects either
    expect((await call('GET', '/operations-manager/jobs?equals[name][$ne]=x')).status).toBe(400);
    expect((await call('GET', '/operations-manager/jobs?q=%7Bbroken')).status).toBe(400);
  });

  it('refuses to search or sort by a secret: answers mask it, a search would tell it a character at a time', async () => {
    for (const query of [
      'starts-with[variables.password]=h',
      'equals[variables.creds.api_token]=x',
      `q=${encodeURIComponent(JSON.stringify({ contains: { 'variables.device_pwd': 'a' } }))}`,
      'sort=variables.password',
    ]) {
      const res = await call('GET', `/operations-manager/jobs?${query}`);
      expect({ query, status: res.status, code: (res.body as { code: string }).code }).toEqual({
        query,
        status: 400,
        code: 'JOB_QUERY_INVALID',
      });
      expect((res.body as { message: string }).message).toContain('holds a secret');
    }
    const list = await call('POST', '/workflow_engine/getJobList/all', { options: { filter: { 'variables.password': 'x' } } });
    expect({ status: list.status, code: (list.body as { code: string }).code }).toEqual({ status: 400, code: 'JOB_QUERY_INVALID' });
    const tasks = await call('GET', '/operations-manager/tasks?starts-with[variables.outgoing.password]=h');
    expect({ status: tasks.status, code: (tasks.body as { code: string }).code }).toEqual({ status: 400, code: 'JOB_QUERY_INVALID' });
    // a member that only looks like one is not refused: a password's expiry says nothing of it
    expect((await call('GET', '/operations-manager/jobs?equals[variables.password_expiry]=1')).status).toBe(200);
  });

  it('shows a job with groups only to its groups (admins see everything)', async () => {
    expect((await page('limit=100')).total).toBe(30);
    expect((await page('limit=100', insider)).total).toBe(30);
    expect((await page('limit=100', outsider)).total).toBe(26);
    const hidden = jobIds[0] as string;
    expect((await call('GET', `/operations-manager/jobs/${hidden}`, undefined, outsider)).status).toBe(403);
    expect((await call('GET', `/operations-manager/jobs/${hidden}`, undefined, insider)).status).toBe(200);
    expect((await call('GET', `/workflow_engine/getJobShallow/${hidden}`, undefined, outsider)).status).toBe(403);
    const cancel = await call('POST', '/operations-manager/jobs/cancel', { jobIds: [hidden] }, outsider);
    expect((cancel.body as { results: { success: boolean }[] }).results[0]?.success).toBe(false);
    const list = await call('POST', '/workflow_engine/getJobList/all', { options: { page: { limit: 100 } } }, outsider);
    expect((list.body as JobList).total).toBe(26);
  });
});

describe('getJobList', () => {
  it('lists by status with filter, page and sort', async () => {
    const res = await call('POST', '/workflow_engine/getJobList/error', {
      options: { filter: { name: 'q-beta' }, page: { skip: 2, limit: 3 }, sort: { field: 'variables.data.n', direction: -1 } },
    });
    expect(res.status).toBe(200);
    const list = res.body as JobList;
    expect(list).toMatchObject({ total: 10, skip: 2, limit: 3 });
    expect(list.results.map((j) => (j.variables as { data: { n: number } }).data.n)).toEqual([23, 20, 17]);
    expect((await call('POST', '/workflow_engine/getJobList/all', { options: {} })).body).toMatchObject({ total: 30, totalExact: true });
    // keyset paging through getJobList's options.page.after gives what skip gives
    const seen: string[] = [];
    let after: string | null | undefined;
    for (let i = 0; i < 10; i += 1) {
      const next = await call('POST', '/workflow_engine/getJobList/all', {
        options: { page: { limit: 8, ...(after ? { after } : {}) }, sort: { field: 'name', direction: 1 } },
      });
      expect(next.status).toBe(200);
      const body = next.body as JobList;
      seen.push(...body.results.map((j) => j._id));
      after = body.nextPageAfter;
      if (after === null) break;
    }
    const all = (
      await call('POST', '/workflow_engine/getJobList/all', { options: { page: { limit: 100 }, sort: { field: 'name', direction: 1 } } })
    ).body as JobList;
    expect(seen).toEqual(all.results.map((j) => j._id));
    expect((await call('POST', '/workflow_engine/getJobList/sleeping', { options: {} })).status).toBe(400);
    expect((await call('POST', '/workflow_engine/getJobList/all', { options: { filter: { $where: 'x' } } })).status).toBe(400);
    // a misspelled option would list every job as if no filter was given
    const misspelled = await call('POST', '/workflow_engine/getJobList/all', { options: { filtr: { name: 'x' } } });
    expect({ status: misspelled.status, body: misspelled.body }).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_FAILED',
        details: [{ member: 'body.options.filtr', message: expect.stringContaining("did you mean 'filter'") }],
      },
    });
    expect((await call('POST', '/workflow_engine/getJobList/all', { options: { filter: { name: { $ne: 'x' } } } })).status).toBe(400);
  });
});

describe('automations (import into the catalog, import and create in the operations manager)', () => {
  it('creates an automation and refuses a second of the same name', async () => {
    const res = await call('POST', '/operations-manager/automations', {
      automation: {
        name: 'nightly-backup',
        description: 'back up configs',
        componentType: 'workflows',
        gbac: { read: [groupId], write: [] },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'Created',
      message: expect.stringContaining('nightly-backup'),
      data: {
        _id: expect.any(String),
        name: 'nightly-backup',
        gbac: { read: [groupId], write: [] },
        createdBy: 'admin',
        created: expect.any(String),
      },
    });
    const dup = await call('POST', '/operations-manager/automations', { automation: { name: 'nightly-backup' } });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ code: 'AUTOMATION_ALREADY_EXISTS' });
    expect((await call('POST', '/operations-manager/automations', { automation: { name: 'x' }, extra: 1 })).status).toBe(400);
  });

  it('imports automations item by item (PUT /operations-manager/automations)', async () => {
    const res = await call('PUT', '/operations-manager/automations', {
      automations: [{ name: 'imp-1' }, { description: 'no name' }, { name: 'nightly-backup' }],
      options: {},
    });
    expect(res.status).toBe(200);
    const body = res.body as ImportResult;
    expect(body.status).toBe('success');
    expect(body.message).toBe('Imported 1 of 3 automations');
    expect(body.imported.map((i) => [i.success, i.created === null])).toEqual([
      [true, false],
      [false, true],
      [false, true],
    ]);
    expect(body.imported[2]?.message).toContain('nightly-backup');
  });

  it('imports exported automations into the catalog with group names as ids (POST /automation_catalog/automations/import)', async () => {
    const item = (name: string, group: string) => ({
      _id: `cat-${name}`,
      name,
      data: {
        gbac: { read: [{ provenance: 'Local', name: group, description: '' }], write: [] },
        description: 'd',
        workflowId: 'w1',
        formId: 'f1',
      },
      repeatInterval: '2 weeks',
    });
    const res = await call('POST', '/automation_catalog/automations/import', {
      automations: [item('cat-a', 'wf-query-team'), item('cat-b', 'no-such-group')],
      options: { adapterMap: {} },
    });
    expect(res.status).toBe(200);
    const body = res.body as ImportResult;
    expect(body.message).toBe('Imported 1 of 2 automations');
    expect(body.imported[0]).toMatchObject({
      success: true,
      created: { _id: 'cat-cat-a', data: { gbac: { read: [groupId], write: [] } } },
    });
    expect(body.imported[1]).toMatchObject({ success: false, created: null, message: expect.stringContaining('no-such-group') });
  });

  it('creates and imports an automation with the triggers it carries, all or nothing, and exports it so', async () => {
    const exported = {
      _id: 'auto-with-triggers',
      name: 'port turn-up (exported)',
      description: 'from another platform',
      componentType: 'workflows',
      componentName: 'port-turn-up',
      gbac: { read: [], write: [] },
      triggers: [
        {
          _id: 'trig-manual-1',
          name: 'By hand',
          type: 'manual',
          enabled: true,
          actionType: 'automations',
          actionId: 'elsewhere',
          formData: { vlan: 10 },
          migrationVersion: 3,
        },
        {
          _id: 'trig-api-1',
          name: 'From CI',
          type: 'endpoint',
          enabled: true,
          actionType: 'automations',
          actionId: 'elsewhere',
          verb: 'POST',
          routeName: 'exported-port-turn-up',
          schema: null,
        },
      ],
    };
    const res = await call('PUT', '/operations-manager/automations', { automations: [exported], options: {} });
    expect(res.status).toBe(200);
    const body = res.body as ImportResult;
    expect(body.imported[0]?.message).toBe('Automation "port turn-up (exported)" imported with 2 trigger(s)');
    expect(body.message).toBe('Imported 1 of 1 automations');
    expect(body.imported[0]).toMatchObject({
      success: true,
      created: { _id: 'auto-with-triggers', triggers: [{ _id: 'trig-manual-1' }, { _id: 'trig-api-1' }] },
    });
    // the triggers are the platform's own, started by this automation (whatever actionId they named)
    const listed = (await call('GET', '/operations-manager/triggers?equals[actionId]=auto-with-triggers&sort=name')).body as {
      data: { _id: string; name: string; type: string; actionId: string; routeName?: string }[];
    };
    expect(listed.data.map((t) => [t._id, t.name, t.type, t.actionId])).toEqual(
      [
        ['trig-manual-1', 'By hand', 'manual', 'auto-with-triggers'],
        ['trig-api-1', 'From CI', 'endpoint', 'auto-with-triggers'],
      ].sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
    );
    // the stored automation does not keep a copy of them; the export gives the live ones
    const stored = (await call('GET', '/operations-manager/automations/auto-with-triggers')).body as { data: Record<string, unknown> };
    expect(stored.data.triggers).toBeUndefined();
    const out = (await call('GET', '/operations-manager/automations/auto-with-triggers/export')).body as {
      data: { _id: string; triggers: Record<string, unknown>[] };
    };
    expect(out.data).toMatchObject({ _id: 'auto-with-triggers', name: 'port turn-up (exported)' });
    expect(out.data.triggers.map((t) => t._id).sort()).toEqual(['trig-api-1', 'trig-manual-1']);
    expect(out.data.triggers[0]).not.toHaveProperty('runAs');

    // the export goes back in as it is, once the original is gone
    expect((await call('DELETE', '/operations-manager/automations/auto-with-triggers')).status).toBe(200);
    const again = (await call('PUT', '/operations-manager/automations', { automations: [out.data], options: {} })).body as ImportResult;
    expect(again.message).toBe('Imported 1 of 1 automations');
    expect((await call('GET', '/operations-manager/triggers?equals[actionId]=auto-with-triggers')).body).toMatchObject({
      metadata: { total: 2 },
    });

    /** Imports `doc`, which must be refused whole: neither it nor its first trigger (`kept`) stays. */
    const refusedWhole = async (doc: { _id: string; name: string; triggers: Record<string, unknown>[] }, kept: string) => {
      const answer = (await call('PUT', '/operations-manager/automations', { automations: [doc], options: {} })).body as ImportResult;
      expect((await call('GET', `/operations-manager/automations/${doc._id}`)).status).toBe(404);
      expect((await call('GET', `/operations-manager/triggers/${kept}`)).status).toBe(404);
      return answer.imported[0];
    };
    // a refused trigger refuses its automation, naming the trigger; nothing of it is kept
    const noRoute = { name: 'no route', type: 'endpoint', verb: 'POST' };
    expect(
      await refusedWhole(
        { _id: 'auto-bad-trigger', name: 'bad trigger', triggers: [{ _id: 'trig-ok-2', name: 'fine', type: 'manual' }, noRoute] },
        'trig-ok-2',
      ),
    ).toMatchObject({ success: false, created: null, message: expect.stringContaining('body.automations[0].triggers[1].routeName') });
    // a trigger the store refuses (its route name is another automation's) takes the automation away again
    const sameRoute = { ...noRoute, name: 'same route', routeName: 'exported-port-turn-up' };
    expect(
      await refusedWhole(
        { _id: 'auto-route-clash', name: 'route clash', triggers: [{ _id: 'trig-ok-3', name: 'first', type: 'manual' }, sameRoute] },
        'trig-ok-3',
      ),
    ).toMatchObject({ success: false, created: null });

    // POST creates the triggers it is given too, and answers them
    const created = await call('POST', '/operations-manager/automations', {
      automation: { name: 'created with a trigger', triggers: [{ name: 'By hand', type: 'manual', formData: {} }] },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ data: { name: 'created with a trigger', triggers: [{ name: 'By hand', type: 'manual' }] } });
    const badList = await call('POST', '/operations-manager/automations', { automation: { name: 'odd', triggers: 'manual' } });
    expect(badList.status).toBe(400);
    expect(badList.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.automation.triggers' }] });
  });

  if (FIXTURES_PRESENT) {
    it('imports the 7 automation documents of the fixtures as they are, with their 7 triggers (PUT /operations-manager/automations)', async () => {
      const docs = fixtureAutomations();
      expect(docs).toHaveLength(7);
      const res = await call('PUT', '/operations-manager/automations', { automations: docs, options: {} });
      expect(res.status).toBe(200);
      const body = res.body as ImportResult;
      expect(body.imported.filter((i) => !i.success).map((i) => i.message)).toEqual([]);
      expect(body.message).toBe('Imported 7 of 7 automations');
      expect(
        body.imported.every((i) => i.success && (i.created as { _id: string; name: string })._id === (i.original as { _id: string })._id),
      ).toBe(true);
      // the Kafka automation's trigger listens to an adapter's topic, which this platform does not publish: it comes in disabled, said so
      const kafka = body.imported.find((i) => (i.original as { name: string }).name.includes('Kafka'));
      expect(kafka?.message).toMatch(
        /trigger ".*" was imported disabled: "kafka" of "@itentialopensource\/adapter-kafkav2" is no event this platform publishes/,
      );
      const kafkaTrigger = (kafka?.created as { triggers: { _id: string; enabled: boolean }[] }).triggers[0];
      expect(kafkaTrigger?.enabled).toBe(false);
      // and enabling it is refused, naming the topic
      const enable = await call('PATCH', `/operations-manager/triggers/${kafkaTrigger?._id}`, { enabled: true });
      expect(enable.status).toBe(400);
      expect(enable.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('topic') });
      // each trigger the export carried is one of the platform's, of its automation, with its id, name and type
      for (const doc of docs) {
        const carried = (doc.triggers ?? []) as { _id: string; name: string; type: string }[];
        const live = (await call('GET', `/operations-manager/triggers?equals[actionId]=${String(doc._id)}`)).body as {
          data: { _id: string; name: string; type: string }[];
        };
        expect(live.data.map((t) => [t._id, t.name, t.type]).sort()).toEqual(carried.map((t) => [t._id, t.name, t.type]).sort());
      }
      expect(docs.flatMap((d) => (d.triggers ?? []) as unknown[])).toHaveLength(7);
    });
  } else {
    it('did NOT import the fixture automations: the fixtures folder is absent', () => {
      warnFixturesAbsent('the import of the 7 automation documents');
    });
  }
});
