import type { Handler } from '@nap/bus';
import { adapterSettingsSchema, adapterTypeOf, isAdapterType } from '../domain/adapters';
import type { AdminContext } from '../context';

/** `GET /schema/adapters/:name`: the settings schema of the type of the adapter (`:name` may be a type). */
export function getAdapterSchema(svc: AdminContext): Handler<'admin.getAdapterSchema'> {
  return async (input) => {
    const { name } = input.params;
    return adapterSettingsSchema(isAdapterType(name) ? name : adapterTypeOf(await svc.adapters.getLive(name)));
  };
}
