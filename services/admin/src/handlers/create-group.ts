import type { Handler } from '@nap/bus';
import { addGroup } from '../steps/roles';
import type { AdminContext } from '../context';

/** `POST /user-management/groups`: create a group; its name one line of text, unique whatever its letter case; custom roles by id. */
export function createGroup(svc: AdminContext): Handler<'admin.createGroup'> {
  return async (input, ctx) => {
    const data = await addGroup(svc, input.body.group, ctx.caller, ctx.deadline, 'body.group');
    return { status: 'Created', message: `Group "${data.name}" created`, data };
  };
}
