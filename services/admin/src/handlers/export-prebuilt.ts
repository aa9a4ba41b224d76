import type { Handler } from '@nap/bus';
import type { PrebuiltPackage } from '@nap/contracts';
import { kindOf } from '../clients/bundle-kinds';
import { exportedPackage } from '../domain/prebuilts';
import type { AdminContext } from '../context';

/** `GET /prebuilts/:id/export`: the package rebuilt from its artifacts as they are now. */
export function exportPrebuilt(svc: AdminContext): Handler<'admin.exportPrebuilt'> {
  return async (input, ctx) => {
    const record = await svc.prebuilts.installed(input.params.id);
    const bundles: PrebuiltPackage['bundles'] = [];
    for (const c of record.components) bundles.push({ type: c.type, data: await kindOf(c.type).read(ctx.call, c) });
    return exportedPackage(record, bundles);
  };
}
