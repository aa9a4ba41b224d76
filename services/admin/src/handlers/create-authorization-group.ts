import type { Handler } from '@nap/bus';
import { invalidMember } from '../domain/validation-error';
import { addGroup } from '../steps/roles';
import type { AdminContext } from '../context';

/**
 * `POST /authorization/groups`: a group as ipctl's group create sends it (`provenance` Pronghorn,
 * `inactive` false, `memberOf` and `assignedRoles` empty or naming custom roles), answered 200
 * `{ status, message, data }`. What a NAP group cannot be is refused by name: inactive, or nested.
 */
export function createAuthorizationGroup(svc: AdminContext): Handler<'admin.createAuthorizationGroup'> {
  return async (input, ctx) => {
    const { provenance: _ignored, inactive, memberOf, ...group } = input.body.group;
    if (inactive === true) throw invalidMember('body.group.inactive', 'is true: a NAP group is never inactive (leave it out or false)');
    if (memberOf !== undefined && memberOf.length > 0) throw invalidMember('body.group.memberOf', 'is not empty: NAP groups do not nest');
    const data = await addGroup(svc, group, ctx.caller, ctx.deadline, 'body.group');
    return { status: 'Created', message: `Group "${data.name}" created`, data };
  };
}
