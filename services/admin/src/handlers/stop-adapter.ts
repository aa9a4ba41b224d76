import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import type { AdminContext } from '../context';

/** `PUT /adapters/:name/stop`: STOPPING until the connection check under way is done, then STOPPED. */
export function stopAdapter(svc: AdminContext): Handler<'admin.stopAdapter'> {
  return async (input, ctx) => {
    const { name } = input.params;
    const doc = await svc.adapters.get(name);
    if (doc.state === 'DELETED') throw new AppError('ADAPTER_STATE_CONFLICT', `Adapter "${name}" is DELETED`);
    await svc.adapters.setState(name, 'STOPPED');
    if (doc.state !== 'STOPPED')
      ctx.audit({ target: { kind: 'adapter', id: name, name }, changes: [{ member: 'state', before: doc.state, after: 'STOPPED' }] });
    return { name, state: svc.adapterMonitor.stop(name) };
  };
}
