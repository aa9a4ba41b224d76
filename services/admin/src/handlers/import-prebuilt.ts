import type { Handler } from '@nap/bus';
import { TIMEOUTS_MS } from '@nap/contracts';
import { installBundles, kindOf } from '../clients/bundle-kinds';
import { newPrebuiltRecord, prebuiltView, refuse } from '../domain/prebuilts';
import type { Call } from '../domain/prebuilts';
import { analysePrebuilt } from '../steps/prebuilts';
import type { AdminContext } from '../context';

/** `POST /prebuilts/import`: every bundle through its owning service; on any failure, nothing stays and nothing is recorded. Answered `{ status, message, data }` as ipctl reads it. */
export function importPrebuilt(svc: AdminContext): Handler<'admin.importPrebuilt'> {
  return async (input, ctx) => {
    const pkg = input.body.prebuilt;
    await rollBackUnfinished(svc, ctx.call, pkg.metadata.name);
    const { problems, planned, unmet } = await analysePrebuilt(svc, ctx.call, pkg, input.body.options ?? {});
    refuse(problems);
    const record = newPrebuiltRecord(pkg, ctx.caller.username, new Date().toISOString(), Date.now());
    // installed anyway (options.ignoreDependencies): the record keeps saying what it lacked
    if (unmet.length > 0) record.missingDependencies = unmet;
    record._id = await svc.prebuilts.begin(record);
    try {
      record.components = await installBundles(ctx.call, planned, [], {
        journal: (components) => svc.prebuilts.setComponents(record._id, components),
        log: svc.log,
      });
    } catch (err) {
      await svc.prebuilts
        .delete(record._id)
        .catch((e: unknown) =>
          svc.log.error({ err: e, prebuilt: record._id }, 'The record of a failed prebuilt installation could not be deleted'),
        );
      throw err;
    }
    await svc.prebuilts.finish(record._id, record.components);
    const data = prebuiltView(record);
    return { status: 'Created', message: `Prebuilt "${data.name}" ${data.version} installed`, data };
  };
}

/**
 * An installation that a crash interrupted leaves its record (its journal) behind: once it is older
 * than an import may run, the artifacts it lists are deleted and the record with them, so that the
 * package can be installed again. (Artifacts it had overwritten cannot be put back: their copies
 * were in the memory of the process that crashed.)
 */
async function rollBackUnfinished(svc: AdminContext, call: Call, name: string): Promise<void> {
  for (const record of await svc.prebuilts.unfinished(name, Date.now() - TIMEOUTS_MS.long)) {
    svc.log.warn(
      { prebuilt: record._id, name, components: record.components.length },
      'Rolling back a prebuilt installation that did not finish',
    );
    for (const c of [...record.components].reverse()) {
      await kindOf(c.type)
        .remove(call, c)
        .catch((err: unknown) =>
          svc.log.error({ err, artifact: c }, 'An artifact of an unfinished prebuilt installation could not be deleted'),
        );
    }
    await svc.prebuilts.delete(record._id);
  }
}
