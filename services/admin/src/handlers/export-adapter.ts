import type { Handler } from '@nap/bus';
import { maskedAdapterData } from '../domain/adapters';
import type { AdminContext } from '../context';

/** `GET /adapters/:name/export`: the adapter document, secrets `********`. */
export function exportAdapter(svc: AdminContext): Handler<'admin.exportAdapter'> {
  return async (input) => maskedAdapterData(await svc.adapters.getLive(input.params.name));
}
