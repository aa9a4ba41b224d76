import type { Handler } from '@nap/bus';
import { newGroupRecord } from '../domain/accounts';
import type { AdminContext } from '../context';

/** `POST /user-management/groups`: create a group. */
export function createGroup(svc: AdminContext): Handler<'admin.createGroup'> {
  return async (input, ctx) => {
    const data = await svc.groups.insert(newGroupRecord(input.body.group, ctx.caller.username, new Date().toISOString()));
    return { status: 'Created', message: `Group "${data.name}" created`, data };
  };
}
