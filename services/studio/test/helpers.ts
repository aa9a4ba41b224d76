import { task, workflowDocument } from '@nap/testing';
import { startTestPlatform } from '@nap/standalone';
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
export async function userWithRoles(platform: TestPlatform, admin: string, username: string, roles: string[]): Promise<GroupUser> {
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

/** A user of {@link userWithRoles}: the account's token and the id of its own group. */
export type GroupUser = { token: string; groupId: string; accountId: string };

/**
 * A platform of a test of what a project's members share with groups: its administrator's token, and
 * two engineering users in groups of their own, `<prefix>-insider` (the test shares guarded
 * documents with its group) and `<prefix>-outsider`.
 */
export async function startWithInsiderAndOutsider(
  prefix: string,
): Promise<{ platform: TestPlatform; admin: string; insider: GroupUser; outsider: GroupUser }> {
  const platform = await startTestPlatform();
  try {
    const admin = await platform.login();
    return {
      platform,
      admin,
      insider: await userWithRoles(platform, admin, `${prefix}-insider`, ['engineering']),
      outsider: await userWithRoles(platform, admin, `${prefix}-outsider`, ['engineering']),
    };
  } catch (err) {
    // the test never sees this platform: its afterAll cannot stop it
    await platform.stop();
    throw err;
  }
}
