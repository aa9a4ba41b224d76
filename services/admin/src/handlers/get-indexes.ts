import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** `GET /indexes`: every index the running services declare, asked of one replica of each. */
export function getIndexes(svc: AdminContext): Handler<'admin.getIndexes'> {
  return async () => {
    const results = await svc.indexes.declared();
    return { results, total: results.length };
  };
}
