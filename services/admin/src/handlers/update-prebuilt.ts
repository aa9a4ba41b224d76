import type { Handler } from '@nap/bus';
import { installBundles } from '../clients/bundle-kinds';
import { checkNewer, checkSamePackage, prebuiltView, refuse, upgradedRecord } from '../domain/prebuilts';
import { analysePrebuilt } from '../steps/prebuilts';
import type { AdminContext } from '../context';

/** `PUT /prebuilts/:id`: the same package in a newer version; the old artifacts give way and come back if the upgrade fails. */
export function updatePrebuilt(svc: AdminContext): Handler<'admin.updatePrebuilt'> {
  return async (input, ctx) => {
    const { id } = input.params;
    const pkg = input.body.prebuilt;
    const current = await svc.prebuilts.installed(id);
    checkSamePackage(id, current, pkg);
    const { problems, planned, unmet } = await analysePrebuilt(svc, ctx.call, pkg, input.body.options ?? {}, current);
    refuse(problems);
    checkNewer(current, pkg);
    // the prebuilt's own artifacts that the new version does not replace by name are removed as well
    const replaced = new Set(planned.flatMap((p) => (p.existing ? [p.existing.id] : [])));
    const leaving = current.components.filter((c) => !replaced.has(c.id));
    const components = await installBundles(ctx.call, planned, leaving, {
      journal: async () => undefined,
      // what was put back after a failure may have new ids (mop gives its own): the record follows
      restoredTo: (restored) => svc.prebuilts.setComponents(id, restored),
      before: current.components,
      log: svc.log,
    });
    const next = upgradedRecord(current, pkg, components, ctx.caller.username, new Date().toISOString());
    // what the new version lacks replaces what the old one lacked
    delete next.missingDependencies;
    if (unmet.length > 0) next.missingDependencies = unmet;
    await svc.prebuilts.replace(next);
    return prebuiltView(next);
  };
}
