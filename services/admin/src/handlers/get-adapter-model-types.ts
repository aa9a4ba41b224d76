import type { Handler } from '@nap/bus';
import { ADAPTER_TYPES } from '@nap/contracts';
import type { AdminContext } from '../context';

/** `GET /adapter-models/types`: available adapter model types, as `{ adapterModels, total }` (the platform's shape, which ipctl reads). */
export function getAdapterModelTypes(_svc: AdminContext): Handler<'admin.getAdapterModelTypes'> {
  return async () => ({ adapterModels: [...ADAPTER_TYPES], total: ADAPTER_TYPES.length });
}
