import type { Handler } from '@nap/bus';
import { changeAdapter } from '../steps/adapters';
import type { AdminContext } from '../context';

/** `PUT /adapters/:name/properties`: replaces the connection settings only; a running adapter restarts with them. */
export function updateAdapterProperties(svc: AdminContext): Handler<'admin.updateAdapterProperties'> {
  return async (input, ctx) => changeAdapter(svc, input.params.name, { settings: input.body.properties }, ctx.caller.username, ctx);
}
