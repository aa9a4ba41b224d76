import type { Handler } from '@nap/bus';
import { adapterHealth } from '../domain/adapters';
import type { AdminContext } from '../context';

/** `GET /health/adapters/:name`: state and connection of an adapter as this process sees them (DELETED for a deleted one). */
export function getAdapterHealth(svc: AdminContext): Handler<'admin.getAdapterHealth'> {
  return async (input) => {
    const doc = await svc.adapters.get(input.params.name);
    return adapterHealth(doc, svc.adapterMonitor.runtime(doc.name), Date.now());
  };
}
