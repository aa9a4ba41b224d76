import type { Handler } from '@nap/bus';
import { adapterHealth } from '../domain/adapters';
import type { AdminContext } from '../context';

/** `GET /health/adapters`: state and connection of every adapter, filtered on name and state. */
export function getAdaptersHealth(svc: AdminContext): Handler<'admin.getAdaptersHealth'> {
  return async (input) => {
    const { results, total } = await svc.adapters.listAll(input.query);
    const now = Date.now();
    return { results: results.map((d) => adapterHealth(d, svc.adapterMonitor.runtime(d.name), now)), total };
  };
}
