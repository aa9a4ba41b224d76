import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import { checkGroupName, newGroupRecord } from '../domain/accounts';
import type { AdminContext } from '../context';

/** `POST /user-management/groups`: create a group; its name one line of text, unique whatever its letter case. */
export function createGroup(svc: AdminContext): Handler<'admin.createGroup'> {
  return async (input, ctx) => {
    const { group } = input.body;
    checkGroupName(group.name, 'body.group.name');
    const sameButCase = await svc.groups.findByNameInAnyCase(group.name);
    if (sameButCase !== null)
      throw new AppError(
        'GROUP_ALREADY_EXISTS',
        sameButCase.name === group.name
          ? `A group named "${group.name}" already exists`
          : `A group named "${sameButCase.name}" already exists; group names differ in more than letter case`,
      );
    const data = await svc.groups.insert(newGroupRecord(group, ctx.caller.username, new Date().toISOString()));
    return { status: 'Created', message: `Group "${data.name}" created`, data };
  };
}
