import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import type { AdminContext } from '../context';

/** `PUT /adapters/:name/start`: STARTING until the first connection check, then RUNNING; the desired state is kept across restarts. */
export function startAdapter(svc: AdminContext): Handler<'admin.startAdapter'> {
  return async (input, ctx) => {
    const { name } = input.params;
    const doc = await svc.adapters.get(name);
    if (doc.state === 'DELETED') throw new AppError('ADAPTER_STATE_CONFLICT', `Adapter "${name}" is DELETED; create it again to use it`);
    const active = svc.adapterMonitor.activeState(name);
    if (active !== undefined) return { name, state: active };
    await svc.adapters.setState(name, 'RUNNING');
    if (doc.state !== 'RUNNING')
      ctx.audit({ target: { kind: 'adapter', id: name, name }, changes: [{ member: 'state', before: doc.state, after: 'RUNNING' }] });
    return { name, state: svc.adapterMonitor.launch({ ...doc, state: 'RUNNING' }) };
  };
}
