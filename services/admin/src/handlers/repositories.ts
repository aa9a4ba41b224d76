import type { HandlerMap } from '@nap/bus';
import type { RepositoryDomain } from '../domain/repositories';

/** `/prebuilts-repository*`: repository configurations of the active profile and the packages they offer. */
export function repositoryHandlers(repositories: RepositoryDomain): HandlerMap<'admin'> {
  return {
    getRepositoryConfigs: async (input) => repositories.list(input.query),
    createRepositoryConfig: async (input, ctx) => repositories.create(input.body.config, ctx.caller.username),
    updateRepositoryConfig: async (input, ctx) => repositories.update(input.params.name, input.body.config, ctx.caller.username),
    deleteRepositoryConfig: async (input, ctx) => {
      await repositories.remove(input.params.name, ctx.caller.username);
      return { status: 'success', message: `Prebuilt repository "${input.params.name}" deleted` };
    },
    getRepositoryPrebuilts: async (input) => repositories.packages(input.query),
  };
}
