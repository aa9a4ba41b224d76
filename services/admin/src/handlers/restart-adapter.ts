import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import type { AdminContext } from '../context';

/** `PUT /adapters/:name/restart`: a new runtime, whatever state the adapter was in (DEAD too). */
export function restartAdapter(svc: AdminContext): Handler<'admin.restartAdapter'> {
  return async (input) => {
    const { name } = input.params;
    const doc = await svc.adapters.get(name);
    if (doc.state === 'DELETED') throw new AppError('ADAPTER_STATE_CONFLICT', `Adapter "${name}" is DELETED; create it again to use it`);
    await svc.adapterMonitor.forget(name);
    await svc.adapters.setState(name, 'RUNNING');
    return { name, state: svc.adapterMonitor.launch({ ...doc, state: 'RUNNING' }) };
  };
}
