import { task, workflowDocument } from '@nap/testing';
import type { TestPlatform } from '@nap/standalone';

export const OK = { state: 'success', type: 'standard' } as const;

/**
 * A valid workflow: start → a1 (newVariable) → end, with an error branch to a manual ViewData task.
 * Without `_id`, so that the studio gives it one (unless `extra` brings one).
 */
export function linearWorkflow(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { _id: _unsaved, ...doc } = workflowDocument(
    name,
    {
      a1: task(
        'newVariable',
        { name: 'greeting', value: 'hello' },
        { value: null },
        { type: 'operation', summary: 'set a variable', description: 'set a variable', displayName: 'WorkFlowEngine' },
      ),
      e1: task(
        'ViewData',
        { header: 'Error', message: 'see below', body: '$var.a1.error', variables: {}, btn_success: 'OK', btn_failure: 'Stop' },
        {},
        { type: 'manual', summary: 'look at the error', description: 'look at the error', displayName: 'WorkFlowEngine' },
      ),
    },
    [
      ['workflow_start', 'a1'],
      ['a1', 'workflow_end'],
      ['a1', 'e1', 'error'],
      ['e1', 'workflow_end'],
    ],
    {
      description: `${name} for tests`,
      inputSchema: { type: 'object', properties: {}, required: [] },
      outputSchema: { type: 'object', properties: {} },
    },
  );
  return { ...doc, ...extra };
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
  if (group.status !== 200) throw new Error(`Group for ${username}: ${group.status} ${JSON.stringify(group.body)}`);
  const groupId = (group.body as { data: { _id: string } }).data._id;
  const account = await platform.http('POST', '/user-management/accounts', {
    token: admin,
    body: { account: { username, password: 'password-123', groups: [groupId] } },
  });
  if (account.status !== 200) throw new Error(`Account ${username}: ${account.status} ${JSON.stringify(account.body)}`);
  return {
    token: await platform.login(username, 'password-123'),
    groupId,
    accountId: (account.body as { data: { _id: string } }).data._id,
  };
}
