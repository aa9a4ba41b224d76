import type { Handler } from '@nap/bus';
import { kindOf } from '../clients/bundle-kinds';
import type { AdminContext } from '../context';

/** `DELETE /prebuilts/:id`: exactly the artifacts the prebuilt created, through their services, then the record. */
export function removePrebuilt(svc: AdminContext): Handler<'admin.removePrebuilt'> {
  return async (input, ctx) => {
    const { id } = input.params;
    const record = await svc.prebuilts.installed(id);
    const left = [...record.components];
    for (const c of [...record.components].reverse()) {
      await kindOf(c.type).remove(ctx.call, c);
      left.pop();
      await svc.prebuilts.setComponents(id, left);
    }
    await svc.prebuilts.delete(id);
    ctx.audit({ target: { kind: 'prebuilt', id, name: record.metadata.name } });
    return { status: 'success', message: `Prebuilt "${id}" removed with its ${record.components.length} artifacts` };
  };
}
