import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** `GET /indexes/:collection/status`: the declared indexes of a collection compared with its store, by the service that owns it. */
export function checkIndexes(svc: AdminContext): Handler<'admin.checkIndexes'> {
  return async (input) => svc.indexes.status(input.params.collection);
}
