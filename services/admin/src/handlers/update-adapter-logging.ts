import type { Handler } from '@nap/bus';
import { isRecord } from '@nap/util';
import { withLevel } from '../domain/logger-props';
import type { AdminContext } from '../context';

/** `PUT /adapters/:name/loglevel`: the level the adapter logs at, recorded under the transport (every one when absent). */
export function updateAdapterLogging(svc: AdminContext): Handler<'admin.updateAdapterLogging'> {
  return async (input) => {
    const { name } = input.params;
    const { level, transport } = input.body.properties;
    const doc = await svc.adapters.getLive(name);
    const next = withLevel(isRecord(doc.data.loggerProps) ? doc.data.loggerProps : {}, level, transport);
    await svc.adapters.setLoggerProps(name, next);
    return next;
  };
}
