import type { Handler } from '@nap/bus';
import { adapterView } from '../domain/adapters';
import type { AdminContext } from '../context';

/** `GET /adapters`: all adapters. */
export function getAdapters(svc: AdminContext): Handler<'admin.getAdapters'> {
  return async (input) => {
    const { results, total } = await svc.adapters.list(input.query);
    return { results: results.map((d) => adapterView(d, svc.adapterMonitor.runtime(d.name))), total };
  };
}
