import type { Handler } from '@nap/bus';
import { OWN_PROVENANCE } from '../domain/accounts';
import { viewAccount } from '../steps/accounts';
import type { AdminContext } from '../context';

/**
 * `GET /whoami`: the calling account, `id` beside `_id` and its groups as `{ id, name, provenance }`
 * (the platform's shape, which ipctl's CurrentUser decodes) and the operations its custom roles allow;
 * the system caller as it is, for calls between services.
 */
export function whoami(svc: AdminContext): Handler<'admin.whoami'> {
  return async (_input, ctx) => {
    if (ctx.caller.id === 'system') return { ...ctx.caller, groups: [] };
    const account = await svc.accounts.get(ctx.caller.id);
    const [view, groups] = await Promise.all([
      viewAccount(svc, account),
      account.groups.length ? svc.groups.byIds(account.groups) : Promise.resolve([]),
    ]);
    const byId = new Map(groups.map((g) => [g._id, g]));
    const operations = ctx.caller.operations;
    return {
      ...view,
      // what the custom roles of its groups allow, so that a console offers it
      ...(operations !== undefined && operations.length > 0 ? { operations: [...operations] } : {}),
      id: view._id,
      groups: account.groups.flatMap((id) => {
        const group = byId.get(id);
        return group === undefined ? [] : [{ id, name: group.name, provenance: group.provenance ?? OWN_PROVENANCE }];
      }),
    };
  };
}
