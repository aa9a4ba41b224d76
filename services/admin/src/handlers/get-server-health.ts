import type { Handler } from '@nap/bus';
import { serverHealth } from '../clients/host';
import type { AdminContext } from '../context';

/** `GET /health/server`: this platform's version and release, and the answering process. */
export function getServerHealth(svc: AdminContext): Handler<'admin.getServerHealth'> {
  return async () => serverHealth(svc.bus, svc.storeKind, await svc.storeDisk());
}
