import type { Handler } from '@nap/bus';
import { addAdapter } from '../steps/adapters';
import type { AdminContext } from '../context';

/** `POST /adapters/import`: an exported adapter, its secrets filled in again; created as by `POST /adapters`. */
export function importAdapter(svc: AdminContext): Handler<'admin.importAdapter'> {
  return async (input, ctx) => addAdapter(svc, input.body.properties, ctx.caller.username, 'imported');
}
