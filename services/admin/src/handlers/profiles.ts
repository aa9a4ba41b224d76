import type { HandlerMap } from '@nap/bus';
import type { ProfileDomain } from '../domain/profiles';

/** `/profiles*` and `/schema/profiles`. */
export function profileHandlers(domain: ProfileDomain): HandlerMap<'admin'> {
  return {
    getProfiles: async (input) => domain.list(input.query),
    getProfile: async (input) => domain.get(input.params.id),
    exportProfile: async (input) => domain.export(input.params.id),
    getProfileSchema: async () => domain.schema(),
    createProfile: async (input, ctx) => domain.create(input.body.properties, ctx.caller.username),
    importProfile: async (input, ctx) => domain.import(input.body.profile, ctx.caller.username),
    updateProfile: async (input, ctx) => domain.update(input.params.id, input.body.properties, ctx.caller.username),
    switchActiveProfile: async (input, ctx) => domain.activate(input.params.id, ctx.caller.username),
    deleteProfile: async (input) => {
      await domain.remove(input.params.id);
      return { status: 'success', message: `Profile "${input.params.id}" deleted` };
    },
  };
}
