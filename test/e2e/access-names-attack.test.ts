import type { Envelope } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { task, workflowDocument } from '@nap/testing';

/**
 * A refusal tells a caller no more of a group-scoped thing than what the caller gave: asked for by
 * id, a workflow, an automation (or its trigger), or a device template that is not shared with the
 * caller is refused (403 GROUP_ACCESS_DENIED) without its name; asked for by name, the name given
 * is the one said. Its readers are still told its name.
 */
let platform: TestPlatform;
let admin: string;
/** engineering, in a group that none of the guarded things is shared with */
let eve: string;

const SECRET = 'leak-secret-name';

type Refusal = { status: number; body: unknown };

function refusal(res: Refusal): { status: number; code?: string; message: string } {
  const body = res.body as { code?: string; message?: string };
  return { status: res.status, code: body.code, message: body.message ?? '' };
}

async function created<T>(res: Refusal, what: string): Promise<T> {
  if (res.status !== 200 && res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  const body = res.body as Envelope<T> | T;
  return (typeof body === 'object' && body !== null && 'data' in body ? body.data : body) as T;
}

let workflowId: string;
let workflowDoc: ReturnType<typeof workflowDocument>;
let automationId: string;
let triggerId: string;
let templateId: string;
let secretGroup: string;
let othersGroup: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
  const group = async (name: string) =>
    (
      await created<{ _id: string }>(
        await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name, roles: ['engineering'] } } }),
        name,
      )
    )._id;
  const secret = await group('leak-secret');
  const others = await group('leak-others');
  secretGroup = secret;
  othersGroup = others;
  await created(
    await platform.http('POST', '/user-management/accounts', {
      token: admin,
      body: { account: { username: 'leak-eve', password: 'password-123', groups: [others] } },
    }),
    'eve',
  );
  eve = await platform.login('leak-eve', 'password-123');

  const doc = (workflowDoc = workflowDocument(
    `${SECRET}-workflow`,
    { a1: task('newVariable', { name: 'a', value: 1 }) },
    [
      ['workflow_start', 'a1'],
      ['a1', 'workflow_end'],
    ],
    // an id that says nothing of the name
    { groups: [secret], _id: 'wf-opaque-0001' },
  ));
  workflowId = (
    await created<{ _id: string }>(
      await platform.http('POST', '/automation-studio/automations', { token: admin, body: { automation: doc } }),
      'workflow',
    )
  )._id;
  automationId = (
    await created<{ _id: string }>(
      await platform.http('POST', '/operations-manager/automations', {
        token: admin,
        body: { automation: { name: `${SECRET}-automation`, gbac: { read: [secret], write: [secret] } } },
      }),
      'automation',
    )
  )._id;
  triggerId = (
    await created<{ _id: string }>(
      await platform.http('POST', '/operations-manager/triggers', {
        token: admin,
        body: { actionId: automationId, name: 'leak-hook', type: 'endpoint', routeName: 'leak-hook', verb: 'POST', enabled: false },
      }),
      'trigger',
    )
  )._id;
  templateId = (
    await created<{ id: string }>(
      await platform.http('POST', '/configuration_manager/templates', {
        token: admin,
        body: { name: `${SECRET}-template`, template: 'x', gbac: { read: [secret], write: [secret] } },
      }),
      'device template',
    )
  ).id;
}, 60_000);

afterAll(async () => {
  await platform?.stop();
});

it('a workflow asked for by id: refused without its name, by get, change and delete', async () => {
  for (const [method, body] of [
    ['GET', undefined],
    ['PUT', { update: { ...workflowDoc, groups: [] } }],
    ['DELETE', undefined],
  ] as const) {
    const res = refusal(await platform.http(method, `/automation-studio/automations/${workflowId}`, { token: eve, body }));
    expect({ method, status: res.status, code: res.code }).toEqual({ method, status: 403, code: 'GROUP_ACCESS_DENIED' });
    expect(res.message).not.toContain(SECRET);
    expect(res.message).toContain(workflowId);
  }
});

it('an automation, and its trigger, asked for by id: refused without its name', async () => {
  for (const [method, route] of [
    ['GET', `/operations-manager/automations/${automationId}`],
    ['DELETE', `/operations-manager/automations/${automationId}`],
    ['GET', `/operations-manager/triggers/${triggerId}`],
    ['DELETE', `/operations-manager/triggers/${triggerId}`],
    ['DELETE', `/operations-manager/triggers/action/${automationId}`],
  ] as const) {
    const res = refusal(await platform.http(method, route, { token: eve }));
    expect({ route, status: res.status, code: res.code }).toEqual({ route, status: 403, code: 'GROUP_ACCESS_DENIED' });
    expect(res.message).not.toContain(SECRET);
  }
});

it('pointing an automation at a workflow by its id: refused without the workflow name', async () => {
  const mine = await created<{ _id: string }>(
    await platform.http('POST', '/operations-manager/automations', {
      token: eve,
      body: { automation: { name: 'leak-eve-automation', componentType: 'workflows' } },
    }),
    'automation',
  );
  const res = refusal(
    await platform.http('PATCH', `/operations-manager/automations/${mine._id}`, { token: eve, body: { componentId: workflowId } }),
  );
  expect({ status: res.status, code: res.code }).toEqual({ status: 403, code: 'GROUP_ACCESS_DENIED' });
  expect(res.message).not.toContain(SECRET);
  expect(res.message).toContain(workflowId);
});

it('a device template asked for by id: refused without its name; asked for by name, that name', async () => {
  const byId = refusal(await platform.http('GET', `/configuration_manager/templates/${templateId}`, { token: eve }));
  expect({ status: byId.status, code: byId.code }).toEqual({ status: 403, code: 'GROUP_ACCESS_DENIED' });
  expect(byId.message).not.toContain(SECRET);
  expect(byId.message).toContain(templateId);
  const byName = refusal(await platform.http('GET', `/configuration_manager/templates/${SECRET}-template`, { token: eve }));
  expect(byName.status).toBe(403);
  expect(byName.message).toContain(`${SECRET}-template`);
});

it('a reader of an automation refused a change is told its name', async () => {
  const readable = await created<{ _id: string }>(
    await platform.http('POST', '/operations-manager/automations', {
      token: admin,
      body: { automation: { name: 'leak-readable', gbac: { read: [othersGroup], write: [secretGroup] } } },
    }),
    'automation',
  );
  const res = refusal(await platform.http('DELETE', `/operations-manager/automations/${readable._id}`, { token: eve }));
  expect({ status: res.status, code: res.code }).toEqual({ status: 403, code: 'GROUP_ACCESS_DENIED' });
  expect(res.message).toContain('leak-readable');
});
