import type { Handler } from '@nap/bus';
import { withPatchedConfig } from '../domain/repository-configs';
import { repositoryConfigs, saveRepositoryConfigs } from '../steps/repositories';
import type { AdminContext } from '../context';

/** `PATCH /prebuilts-repository/configs/:name`: changes members of a prebuilt repository; a token sent back as `********` keeps the stored one. */
export function updateRepositoryConfig(svc: AdminContext): Handler<'admin.updateRepositoryConfig'> {
  return async (input, ctx) => {
    const { configs, changed } = withPatchedConfig(await repositoryConfigs(svc), input.params.name, input.body.config);
    await saveRepositoryConfigs(svc, configs, ctx.caller.username, ctx);
    return changed;
  };
}
