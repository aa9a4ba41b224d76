import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** `POST /indexes/:collection`: the declared indexes of a collection that its store lacks, created by the service that owns it. */
export function createIndexes(svc: AdminContext): Handler<'admin.createIndexes'> {
  return async (input) => svc.indexes.create(input.params.collection);
}
