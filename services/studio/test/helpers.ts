import type { TestPlatform } from '@nap/standalone';

export const OK = { state: 'success', type: 'standard' } as const;
export const ON_ERROR = { state: 'error', type: 'standard' } as const;

/** A valid workflow: start → a1 (newVariable) → end, with an error branch to a manual ViewData task. */
export function linearWorkflow(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    description: `${name} for tests`,
    type: 'automation',
    tasks: {
      workflow_start: { name: 'workflow_start', groups: [], nodeLocation: { x: 0, y: 0 } },
      a1: {
        name: 'newVariable',
        app: 'WorkFlowEngine',
        type: 'operation',
        summary: 'set a variable',
        description: 'set a variable',
        displayName: 'WorkFlowEngine',
        variables: { incoming: { name: 'greeting', value: 'hello' }, outgoing: { value: null }, error: '', decorators: [] },
        groups: [],
        x: 100,
        y: 0,
      },
      e1: {
        name: 'ViewData',
        app: 'WorkFlowEngine',
        type: 'manual',
        summary: 'look at the error',
        description: 'look at the error',
        displayName: 'WorkFlowEngine',
        variables: {
          incoming: { header: 'Error', message: 'see below', body: '$var.a1.error', variables: {}, btn_success: 'OK', btn_failure: 'Stop' },
          outgoing: {},
          error: '',
          decorators: [],
        },
        groups: [],
        x: 100,
        y: 100,
      },
      workflow_end: { name: 'workflow_end', groups: [], nodeLocation: { x: 200, y: 0 } },
    },
    transitions: { workflow_start: { a1: OK }, a1: { workflow_end: OK, e1: ON_ERROR }, e1: { workflow_end: OK }, workflow_end: {} },
    groups: [],
    inputSchema: { type: 'object', properties: {}, required: [] },
    outputSchema: { type: 'object', properties: {} },
    ...extra,
  };
}

/** A group with `roles`, an account in it, and that account's token. */
export async function userWithRoles(
  platform: TestPlatform,
  admin: string,
  username: string,
  roles: string[],
): Promise<{ token: string; groupId: string; accountId: string }> {
  const group = await platform.http('POST', '/user-management/groups', {
    token: admin,
    body: { group: { name: `${username}-group`, roles } },
  });
  if (group.status !== 201) throw new Error(`Group for ${username}: ${group.status} ${JSON.stringify(group.body)}`);
  const groupId = (group.body as { data: { _id: string } }).data._id;
  const account = await platform.http('POST', '/user-management/accounts', {
    token: admin,
    body: { account: { username, password: 'password-123', groups: [groupId] } },
  });
  if (account.status !== 201) throw new Error(`Account ${username}: ${account.status} ${JSON.stringify(account.body)}`);
  return {
    token: await platform.login(username, 'password-123'),
    groupId,
    accountId: (account.body as { data: { _id: string } }).data._id,
  };
}
