import type { Handler } from '@nap/bus';
import { changeAdapter } from '../steps/adapters';
import type { AdminContext } from '../context';

/** `PUT /adapters/:name`: replaces the adapter document; a running adapter restarts with it. */
export function updateAdapter(svc: AdminContext): Handler<'admin.updateAdapter'> {
  return async (input, ctx) => changeAdapter(svc, input.params.name, { data: input.body.properties }, ctx.caller.username, ctx);
}
