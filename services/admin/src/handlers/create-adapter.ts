import type { Handler } from '@nap/bus';
import { addAdapter } from '../steps/adapters';
import type { AdminContext } from '../context';

/** `POST /adapters`: an adapter in the original nesting, STOPPED; its secrets sealed. */
export function createAdapter(svc: AdminContext): Handler<'admin.createAdapter'> {
  return async (input, ctx) => addAdapter(svc, input.body.properties, ctx.caller.username, 'created');
}
