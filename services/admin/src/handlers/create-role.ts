import type { Handler } from '@nap/bus';
import { CUSTOM_PROVENANCE, checkMethods, checkProvenance, checkRoleName, operationsOf } from '../domain/roles';
import { refuseTakenName, roleView } from '../steps/roles';
import type { AdminContext } from '../context';
import { refuseMethodsBeyondCaller } from '../steps/delegation';

/**
 * `POST /authorization/roles`: a custom role (ipctl's role create and import both post here; an
 * export carries no `_id`, and one given is not kept). Its name is one line of text unique among
 * custom and built-in roles whatever its letter case; each method one NAP has.
 */
export function createRole(svc: AdminContext): Handler<'admin.createRole'> {
  return async (input, ctx) => {
    const { role } = input.body;
    checkRoleName(role.name, 'body.role.name');
    checkProvenance(role.provenance, 'body.role.provenance');
    const allowedMethods = checkMethods(role.allowedMethods ?? [], 'body.role.allowedMethods');
    refuseMethodsBeyondCaller(ctx.caller, operationsOf([{ allowedMethods }]), `Role "${role.name}" would allow`);
    await refuseTakenName(svc, role.name);
    const now = new Date().toISOString();
    const by = ctx.caller.username;
    const created = await svc.roles.insert({
      name: role.name,
      description: role.description ?? '',
      provenance: CUSTOM_PROVENANCE,
      allowedMethods,
      allowedViews: (role.allowedViews ?? []).map((v) => ({ provenance: v.provenance, path: v.path })),
      created: now,
      createdBy: by,
      lastUpdated: now,
      lastUpdatedBy: by,
    });
    return { status: 'Created', message: `Role "${created.name}" created`, data: roleView(created) };
  };
}
