import { createBusClient } from '@nap/bus';
import type { BusClient } from '@nap/bus';
import { getOperation, validateResponse } from '@nap/contracts';
import type { Caller, ImportResult, StoredWorkflowDocument as WorkflowDocument, WorkflowProblem, WorkflowSaveResult } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { OK, linearWorkflow, userWithRoles } from './helpers';

let platform: TestPlatform;
let admin: string;
let bus: BusClient;

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
  bus = createBusClient({ bus: platform.bus });
});

afterAll(async () => {
  await platform.stop();
});

async function create(workflow: Record<string, unknown>, token = admin): Promise<{ status: number; body: unknown }> {
  return platform.http('POST', '/automation-studio/automations', { token, body: { automation: workflow } });
}

async function created(workflow: Record<string, unknown>, token = admin): Promise<WorkflowDocument> {
  const res = await create(workflow, token);
  expect(res.status).toBe(200);
  return (res.body as WorkflowSaveResult).data;
}

function callerOf(username: string, roles: Caller['roles'], groups: string[]): Caller {
  return { id: `${username}-id`, username, roles, groups };
}

describe('creating workflow documents', () => {
  it('answers 200 Created with the stored document, its audit fields and no warning for a sound graph', async () => {
    const before = Date.now();
    const res = await create(linearWorkflow('Create me'));
    expect(res.status).toBe(200);
    const body = res.body as WorkflowSaveResult;
    expect(body).toMatchObject({ status: 'Created', message: expect.stringContaining('Create me'), warnings: [] });
    expect(body.data).toMatchObject({
      _id: expect.any(String),
      name: 'Create me',
      type: 'automation',
      description: 'Create me for tests',
      groups: [],
      decorators: [],
      font_size: 12,
      canvasVersion: 3,
      created_by: 'admin',
      last_updated_by: 'admin',
      transitions: { workflow_start: { a1: OK } },
    });
    expect(Date.parse(body.data.created)).toBeGreaterThanOrEqual(before - 1000);
    expect(body.data.last_updated).toBe(body.data.created);
    expect(validateResponse(getOperation('studio.createAutomation'), body)).toEqual([]);
  });

  it('sets the audit fields itself, whatever the document says', async () => {
    const doc = await created(
      linearWorkflow('Audit', { created: '1999-01-01T00:00:00.000Z', created_by: { username: 'someone' }, last_updated_by: 'mallory' }),
    );
    expect(doc.created_by).toBe('admin');
    expect(doc.last_updated_by).toBe('admin');
    expect(doc.created).not.toBe('1999-01-01T00:00:00.000Z');
  });

  it('keeps members it does not own exactly as submitted', async () => {
    const doc = await created(
      linearWorkflow('Extras', { tags: ['x'], migrationVersion: 5, sla: 60000, errorHandler: null, font_size: 22 }),
    );
    expect(doc).toMatchObject({ tags: ['x'], migrationVersion: 5, sla: 60000, errorHandler: null, font_size: 22 });
    expect(doc.tasks.workflow_start).toEqual({ name: 'workflow_start', groups: [], nodeLocation: { x: 0, y: 0 } });
  });

  it('refuses a second workflow of the same name with 409 WORKFLOW_ALREADY_EXISTS', async () => {
    await created(linearWorkflow('Unique'));
    const dup = await create(linearWorkflow('Unique'));
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ code: 'WORKFLOW_ALREADY_EXISTS', message: expect.stringContaining('"Unique"') });
  });

  it('refuses a broken graph with 400 WORKFLOW_INVALID naming each task and transition', async () => {
    const wf = linearWorkflow('Broken');
    const tasks = wf.tasks as Record<string, unknown>;
    tasks.orphan = { name: 'stub', app: 'WorkFlowEngine', type: 'automatic', variables: { incoming: {}, outgoing: {} } };
    wf.transitions = {
      workflow_start: { a1: OK },
      a1: { workflow_end: OK, e1: { state: 'oops', type: 'standard' }, missing: OK },
      e1: { workflow_end: OK },
    };
    const res = await create(wf);
    expect(res.status).toBe(400);
    const body = res.body as { code: string; message: string; details: WorkflowProblem[] };
    expect(body.code).toBe('WORKFLOW_INVALID');
    expect(body.message).toContain('"Broken"');
    expect(body.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          code: 'TRANSITION_STATE_INVALID',
          member: 'body.automation.transitions.a1.e1.state',
          transition: { from: 'a1', to: 'e1' },
        }),
        expect.objectContaining({
          code: 'TRANSITION_TO_UNKNOWN_TASK',
          member: 'body.automation.transitions.a1.missing',
          transition: { from: 'a1', to: 'missing' },
        }),
        expect.objectContaining({ code: 'TASK_UNREACHABLE', task: 'orphan' }),
      ]),
    );
    expect(body.details).toHaveLength(3);
    expect((await platform.http('GET', '/automation-studio/automations?equals=Broken', { token: admin })).body).toMatchObject({ total: 0 });
  });

  it('refuses a workflow without workflow_start and workflow_end', async () => {
    const res = await create({ name: 'Frameless', tasks: {}, transitions: {} });
    expect(res.status).toBe(400);
    expect((res.body as { details: WorkflowProblem[] }).details.map((d) => d.code).sort()).toEqual(['END_MISSING', 'START_MISSING']);
  });

  it('refuses a document that is not shaped like a workflow with 400 VALIDATION_FAILED', async () => {
    const res = await create({ name: 'Shapeless', tasks: [] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ member: 'body.automation.tasks' })] });
    expect((await create({ description: 'no name' })).status).toBe(400);
  });

  it('saves a risky but legal workflow and says what is risky in warnings', async () => {
    const wf = linearWorkflow('Risky');
    wf.transitions = { workflow_start: { a1: OK }, a1: { e1: OK }, e1: {} };
    const res = await create(wf);
    expect(res.status).toBe(200);
    const body = res.body as WorkflowSaveResult;
    expect(body.message).toContain('warning');
    expect(body.warnings.map((w) => [w.code, w.task])).toEqual([
      ['END_UNREACHABLE', 'workflow_end'],
      ['TASK_WITHOUT_ERROR_TRANSITION', 'a1'],
      ['TASK_DEAD_END', 'e1'],
    ]);
  });
});

describe('reading, replacing and deleting workflow documents', () => {
  it('gets one by id, replaces it keeping its creation stamp, and deletes it', async () => {
    const doc = await created(linearWorkflow('Lifecycle'));
    const got = await platform.http('GET', `/automation-studio/automations/${doc._id}`, { token: admin });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(doc);

    const next = linearWorkflow('Lifecycle renamed', { description: 'changed', _id: 'ignored-id' });
    (next.tasks as Record<string, Record<string, unknown>>).a1!.summary = 'changed summary';
    const put = await platform.http('PUT', `/automation-studio/automations/${doc._id}`, { token: admin, body: { update: next } });
    expect(put.status).toBe(200);
    const updated = (put.body as WorkflowSaveResult).data;
    expect(put.body).toMatchObject({ status: 'success', warnings: [] });
    expect(updated).toMatchObject({
      _id: doc._id,
      name: 'Lifecycle renamed',
      description: 'changed',
      created: doc.created,
      created_by: 'admin',
    });
    expect(updated.tasks.a1!.summary).toBe('changed summary');
    expect(Date.parse(updated.last_updated)).toBeGreaterThanOrEqual(Date.parse(doc.last_updated));
    expect(validateResponse(getOperation('studio.updateAutomation'), put.body)).toEqual([]);
    expect((await platform.http('GET', `/automation-studio/automations/${doc._id}`, { token: admin })).body).toEqual(updated);

    const del = await platform.http('DELETE', `/automation-studio/automations/${doc._id}`, { token: admin });
    expect(del).toMatchObject({ status: 200, body: { status: 'success', message: expect.stringContaining('Lifecycle renamed') } });
    const gone = await platform.http('GET', `/automation-studio/automations/${doc._id}`, { token: admin });
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ code: 'WORKFLOW_NOT_FOUND', message: expect.stringContaining(doc._id) });
    expect((await platform.http('DELETE', `/automation-studio/automations/${doc._id}`, { token: admin })).status).toBe(404);
  });

  it('refuses a replacement that is invalid, that takes another name, or of a workflow that does not exist', async () => {
    const doc = await created(linearWorkflow('Replace target'));
    await created(linearWorkflow('Taken name'));
    const taken = await platform.http('PUT', `/automation-studio/automations/${doc._id}`, {
      token: admin,
      body: { update: linearWorkflow('Taken name') },
    });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ code: 'WORKFLOW_ALREADY_EXISTS' });
    const invalid = await platform.http('PUT', `/automation-studio/automations/${doc._id}`, {
      token: admin,
      body: { update: { ...linearWorkflow('Replace target'), transitions: { a1: { zz: OK } } } },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({
      code: 'WORKFLOW_INVALID',
      details: expect.arrayContaining([expect.objectContaining({ member: 'body.update.transitions.a1.zz' })]),
    });
    const missing = await platform.http('PUT', '/automation-studio/automations/no-such-id', {
      token: admin,
      body: { update: linearWorkflow('Nobody') },
    });
    expect(missing.status).toBe(404);
    expect((await platform.http('GET', `/automation-studio/automations/${doc._id}`, { token: admin })).body).toMatchObject({
      name: 'Replace target',
    });
  });

  it('lists pages filtered and sorted by allowed fields only, with the total', async () => {
    for (const n of ['List C', 'List A', 'List B']) await created(linearWorkflow(n));
    const page = await platform.http('GET', '/automation-studio/automations?startsWith=List%20&sort=name&order=-1&limit=2', {
      token: admin,
    });
    expect(page.status).toBe(200);
    const body = page.body as { items: WorkflowDocument[]; total: number; skip: number; limit: number };
    expect(body.items.map((w) => w.name)).toEqual(['List C', 'List B']);
    expect(body).toMatchObject({ total: 3, skip: 0, limit: 2 });
    expect(validateResponse(getOperation('studio.getAutomations'), body)).toEqual([]);
    const next = await platform.http('GET', '/automation-studio/automations?startsWith=List%20&sort=name&order=-1&limit=2&skip=2', {
      token: admin,
    });
    expect((next.body as { items: WorkflowDocument[] }).items.map((w) => w.name)).toEqual(['List A']);
    const contains = await platform.http('GET', '/automation-studio/automations?contains=list%20b&containsField=name', { token: admin });
    expect((contains.body as { items: WorkflowDocument[] }).items.map((w) => w.name)).toEqual(['List B']);
    // regular-expression characters are text, not a pattern
    expect((await platform.http('GET', '/automation-studio/automations?contains=.*', { token: admin })).body).toMatchObject({ total: 0 });
    const badField = await platform.http('GET', '/automation-studio/automations?equals=x&equalsField=tasks', { token: admin });
    expect(badField.status).toBe(400);
    expect((await platform.http('GET', '/automation-studio/automations?sort=$where', { token: admin })).status).toBe(400);
  });
});

describe('importing workflow documents', () => {
  it('reports per item: imported ones with their stored document and warnings, refused ones with a message, created null and problems', async () => {
    await created(linearWorkflow('Already here'));
    const broken = { ...linearWorkflow('Import broken'), transitions: { workflow_start: { nowhere: OK } } };
    const items = [
      linearWorkflow('Import one'),
      broken,
      linearWorkflow('Already here'),
      { description: 'no name' },
      linearWorkflow('Import two'),
      linearWorkflow('Import one'),
    ];
    const res = await platform.http('POST', '/automation-studio/automations/import', { token: admin, body: { automations: items } });
    expect(res.status).toBe(200);
    const body = res.body as ImportResult & {
      imported: (ImportResult['imported'][number] & { warnings?: WorkflowProblem[]; problems?: WorkflowProblem[] })[];
    };
    expect(body.status).toBe('success');
    expect(body.message).toBe('Imported 2 of 6 workflows');
    expect(body.imported.map((i) => i.success)).toEqual([true, false, false, false, true, false]);
    expect(body.imported[0]).toMatchObject({
      message: expect.stringContaining('Import one'),
      original: items[0],
      created: { name: 'Import one', _id: expect.any(String) },
      warnings: [],
    });
    expect(body.imported[1]).toMatchObject({
      created: null,
      message: expect.stringContaining('Import broken'),
      problems: expect.arrayContaining([
        expect.objectContaining({ code: 'TRANSITION_TO_UNKNOWN_TASK', member: 'body.automations[1].transitions.workflow_start.nowhere' }),
      ]),
    });
    expect(body.imported[2]).toMatchObject({ created: null, message: expect.stringContaining('already exists') });
    expect(body.imported[3]).toMatchObject({
      created: null,
      original: { description: 'no name' },
      message: expect.stringContaining('name'),
    });
    expect(body.imported[5]).toMatchObject({ created: null, message: expect.stringContaining('"Import one"') });
    expect(validateResponse(getOperation('studio.importAutomations'), body)).toEqual([]);
    const stored = await platform.http('GET', '/automation-studio/automations?startsWith=Import', { token: admin });
    expect((stored.body as { items: WorkflowDocument[] }).items.map((w) => w.name)).toEqual(['Import one', 'Import two']);
  });

  it('keeps the id a document brings, so references across an export survive', async () => {
    const res = await platform.http('POST', '/automation-studio/automations/import', {
      token: admin,
      body: { automations: [linearWorkflow('Kept id', { _id: '61b0c093df69ba016dffc47f' })] },
    });
    expect((res.body as ImportResult).imported[0]).toMatchObject({ success: true, created: { _id: '61b0c093df69ba016dffc47f' } });
    const again = await platform.http('POST', '/automation-studio/automations/import', {
      token: admin,
      body: { automations: [linearWorkflow('Other name', { _id: '61b0c093df69ba016dffc47f' })] },
    });
    expect((again.body as ImportResult).imported[0]).toMatchObject({
      success: false,
      created: null,
      message: expect.stringContaining('id "61b0c093df69ba016dffc47f"'),
    });
  });

  it('refuses an empty list as a malformed request', async () => {
    expect((await platform.http('POST', '/automation-studio/automations/import', { token: admin, body: { automations: [] } })).status).toBe(
      400,
    );
  });
});

describe('studio.getWorkflow on the bus', () => {
  it('answers the stored document by name, by id, or by both when both match', async () => {
    const doc = await created(linearWorkflow('Bus read'));
    const caller = callerOf('engine-user', ['operations'], []);
    expect((await bus.call('studio.getWorkflow', { body: { name: 'Bus read' } }, { caller })).body).toEqual(doc);
    expect((await bus.call('studio.getWorkflow', { body: { id: doc._id } }, { caller })).body).toEqual(doc);
    expect((await bus.call('studio.getWorkflow', { body: { id: doc._id, name: 'Bus read' } }, { caller })).body).toEqual(doc);
    await expect(bus.call('studio.getWorkflow', { body: { id: doc._id, name: 'Other' } }, { caller })).rejects.toMatchObject({
      code: 'WORKFLOW_NOT_FOUND',
      status: 404,
    });
    await expect(bus.call('studio.getWorkflow', { body: { name: 'No such workflow' } }, { caller })).rejects.toMatchObject({
      code: 'WORKFLOW_NOT_FOUND',
      message: 'No workflow with name "No such workflow"',
    });
    // a body without name or id does not compile with the typed call; the unchecked one sends it
    await expect(bus.callDynamic('studio.getWorkflow', { body: {} }, { caller })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('answers a name with the workflow that has it now: not one renamed or deleted since it was read by that name', async () => {
    const caller = callerOf('engine-user', ['operations'], []);
    const read = (name: string) => bus.call('studio.getWorkflow', { body: { name } }, { caller });
    const first = await created(linearWorkflow('Bus renamed'));
    expect((await read('Bus renamed')).body).toEqual(first);
    const put = await platform.http('PUT', `/automation-studio/automations/${first._id}`, {
      token: admin,
      body: { update: linearWorkflow('Bus renamed later') },
    });
    expect(put.status).toBe(200);
    await expect(read('Bus renamed')).rejects.toMatchObject({ code: 'WORKFLOW_NOT_FOUND', message: 'No workflow with name "Bus renamed"' });
    expect((await read('Bus renamed later')).body).toMatchObject({ _id: first._id, name: 'Bus renamed later' });
    // the name taken again by another workflow names that one
    const second = await created(linearWorkflow('Bus renamed'));
    expect((await read('Bus renamed')).body).toEqual(second);
    expect((await platform.http('DELETE', `/automation-studio/automations/${second._id}`, { token: admin })).status).toBe(200);
    await expect(read('Bus renamed')).rejects.toMatchObject({ code: 'WORKFLOW_NOT_FOUND' });
  });

  it("resolves a plain name from a project member to that project's member first, then the workflow of that plain name", async () => {
    const runner = await created(linearWorkflow('@p1: Bus runner'));
    await created(linearWorkflow('@p2: Bus runner'));
    const outside = await created(linearWorkflow('Bus runner'));
    const caller = callerOf('engine-user', ['operations'], []);
    const read = async (name: string, from?: string) =>
      (await bus.call('studio.getWorkflow', { body: { name, ...(from !== undefined ? { from } : {}) } }, { caller })).body._id;
    expect(await read('Bus runner', '@p1: Port Turn Up')).toBe(runner._id);
    expect(await read('Bus runner', '@p3: Port Turn Up')).toBe(outside._id);
    expect(await read('Bus runner', 'Port Turn Up')).toBe(outside._id);
    expect(await read('Bus runner')).toBe(outside._id);
    // a full member name means that member, from anywhere
    expect(await read('@p1: Bus runner', '@p2: Port Turn Up')).toBe(runner._id);
    // by id and name, the name may be the plain one the calling project uses
    expect(
      (await bus.call('studio.getWorkflow', { body: { id: runner._id, name: 'Bus runner', from: '@p1: Port Turn Up' } }, { caller })).body
        ._id,
    ).toBe(runner._id);
    await expect(
      bus.call('studio.getWorkflow', { body: { name: 'Bus nowhere', from: '@p1: Port Turn Up' } }, { caller }),
    ).rejects.toMatchObject({
      code: 'WORKFLOW_NOT_FOUND',
      message: 'No workflow with name "@p1: Bus nowhere" or "Bus nowhere"',
    });
  });
});

describe('group-based access to workflow documents', () => {
  it('limits a workflow shared with groups to their members and admins', async () => {
    const alice = await userWithRoles(platform, admin, 'alice', ['engineering']);
    const bob = await userWithRoles(platform, admin, 'bob', ['engineering']);
    const shared = await created(linearWorkflow('Team A only', { groups: [alice.groupId] }));
    const open = await created(linearWorkflow('Everyone'));

    expect((await platform.http('GET', `/automation-studio/automations/${shared._id}`, { token: alice.token })).status).toBe(200);
    const denied = await platform.http('GET', `/automation-studio/automations/${shared._id}`, { token: bob.token });
    expect(denied.status).toBe(403);
    // named as asked for (its id), never by a name the caller may not read
    expect(denied.body).toMatchObject({ code: 'GROUP_ACCESS_DENIED', message: expect.stringContaining(shared._id) });
    expect((denied.body as { message: string }).message).not.toContain('Team A only');
    expect((await platform.http('GET', `/automation-studio/automations/${open._id}`, { token: bob.token })).status).toBe(200);
    // the engine reads it on the bus as the caller who starts a job: the same rule, answered by name as asked
    const read = (caller: Caller) => bus.call('studio.getWorkflow', { body: { name: 'Team A only' } }, { caller });
    await expect(read(callerOf('bob', ['operations'], []))).rejects.toMatchObject({
      code: 'GROUP_ACCESS_DENIED',
      message: expect.stringContaining('"Team A only"'),
    });
    expect((await read(callerOf('alice', ['operations'], [alice.groupId]))).body).toEqual(shared);

    const names = async (token: string): Promise<string[]> =>
      ((await platform.http('GET', '/automation-studio/automations?limit=500', { token })).body as { items: WorkflowDocument[] }).items.map(
        (w) => w.name,
      );
    expect(await names(alice.token)).toEqual(expect.arrayContaining(['Team A only', 'Everyone']));
    expect(await names(bob.token)).toContain('Everyone');
    expect(await names(bob.token)).not.toContain('Team A only');
    expect(await names(admin)).toContain('Team A only');

    expect(
      (
        await platform.http('PUT', `/automation-studio/automations/${shared._id}`, {
          token: bob.token,
          body: { update: linearWorkflow('Team A only') },
        })
      ).status,
    ).toBe(403);
    expect((await platform.http('DELETE', `/automation-studio/automations/${shared._id}`, { token: bob.token })).status).toBe(403);

    // the engine reads as the caller who starts the job
    await expect(
      bus.call('studio.getWorkflow', { body: { name: 'Team A only' } }, { caller: callerOf('bob', ['engineering'], [bob.groupId]) }),
    ).rejects.toMatchObject({ code: 'GROUP_ACCESS_DENIED' });
    expect(
      (
        await bus.call(
          'studio.getWorkflow',
          { body: { name: 'Team A only' } },
          { caller: callerOf('alice', ['engineering'], [alice.groupId]) },
        )
      ).body,
    ).toMatchObject({ _id: shared._id });

    // nobody but an admin shares a workflow only with groups they are not in
    const lockout = await create(linearWorkflow('Bob for Alice', { groups: [alice.groupId] }), bob.token);
    expect(lockout.status).toBe(403);
    expect(lockout.body).toMatchObject({ code: 'GROUP_ACCESS_DENIED' });
    expect((await create(linearWorkflow('Bob for Bob', { groups: [bob.groupId, alice.groupId] }), bob.token)).status).toBe(200);
  });

  it('lets the roles of the catalog decide who writes: a read-only caller cannot create', async () => {
    const reader = await userWithRoles(platform, admin, 'reader', ['apiread']);
    expect((await create(linearWorkflow('By a reader'), reader.token)).status).toBe(403);
    expect((await platform.http('GET', '/automation-studio/automations', { token: reader.token })).status).toBe(200);
  });
});
