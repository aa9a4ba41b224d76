import type { Handler } from '@nap/bus';
import { systemHealth } from '../clients/host';
import type { AdminContext } from '../context';

/** `GET /health/system`: the host of the answering process. */
export function getSystemHealth(_svc: AdminContext): Handler<'admin.getSystemHealth'> {
  return async () => systemHealth();
}
