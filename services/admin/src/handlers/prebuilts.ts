import type { HandlerMap } from '@nap/bus';
import type { PrebuiltDomain } from '../domain/prebuilts';

/** `/prebuilts*`: installation, upgrade, validation, export and removal through the owning services. */
export function prebuiltHandlers(prebuilts: PrebuiltDomain): HandlerMap<'admin'> {
  return {
    getPrebuilts: async (input) => prebuilts.list(input.query),
    getPrebuilt: async (input) => prebuilts.get(input.params.id),
    importPrebuilt: async (input, ctx) => prebuilts.import(ctx.call, input.body.prebuilt, input.body.options ?? {}, ctx.caller.username),
    updatePrebuilt: async (input, ctx) =>
      prebuilts.upgrade(ctx.call, input.params.id, input.body.prebuilt, input.body.options ?? {}, ctx.caller.username),
    validatePrebuilt: async (input, ctx) => prebuilts.validate(ctx.call, input.body.prebuilt, input.body.options ?? {}),
    exportPrebuilt: async (input, ctx) => prebuilts.export(ctx.call, input.params.id),
    removePrebuilt: async (input, ctx) => {
      const removed = await prebuilts.remove(ctx.call, input.params.id);
      return { status: 'success', message: `Prebuilt "${input.params.id}" removed with its ${removed} artifacts` };
    },
  };
}
