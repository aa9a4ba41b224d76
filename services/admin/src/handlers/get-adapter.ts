import type { Handler } from '@nap/bus';
import { adapterView } from '../domain/adapters';
import type { AdminContext } from '../context';

/** `GET /adapters/:name`: the adapter, secrets answered as `********`, with its state in this process. */
export function getAdapter(svc: AdminContext): Handler<'admin.getAdapter'> {
  return async (input) => adapterView(await svc.adapters.getLive(input.params.name), svc.adapterMonitor.runtime(input.params.name));
}
