import type { Handler } from '@nap/bus';
import { ADAPTER_TYPES } from '@nap/contracts';
import type { AdminContext } from '../context';

/** `GET /adapter-models/types`: available adapter model types. */
export function getAdapterModelTypes(_svc: AdminContext): Handler<'admin.getAdapterModelTypes'> {
  return async () => ({ results: [...ADAPTER_TYPES], total: ADAPTER_TYPES.length });
}
