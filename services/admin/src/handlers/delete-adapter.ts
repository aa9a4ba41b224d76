import type { Handler } from '@nap/bus';
import { adapterTombstone } from '../domain/adapters';
import type { AdminContext } from '../context';

/** `DELETE /adapters/:name`: stops the adapter and leaves a tombstone: its name and state, no settings, no secrets. */
export function deleteAdapter(svc: AdminContext): Handler<'admin.deleteAdapter'> {
  return async (input, ctx) => {
    const { name } = input.params;
    const current = await svc.adapters.getLive(name);
    await svc.adapterMonitor.forget(name);
    await svc.adapters.replace(adapterTombstone(current, ctx.caller.username, new Date().toISOString()));
    await svc.adapterMonitor.announce(name, 'deleted', 'DELETED');
    return { status: 'success', message: `Adapter "${name}" deleted` };
  };
}
