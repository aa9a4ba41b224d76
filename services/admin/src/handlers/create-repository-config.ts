import type { Handler } from '@nap/bus';
import { withNewConfig } from '../domain/repository-configs';
import { repositoryConfigs, saveRepositoryConfigs } from '../steps/repositories';
import type { AdminContext } from '../context';

/** `POST /prebuilts-repository/configs`: a new prebuilt repository in the active profile. */
export function createRepositoryConfig(svc: AdminContext): Handler<'admin.createRepositoryConfig'> {
  return async (input, ctx) => {
    const { configs, added } = withNewConfig(await repositoryConfigs(svc), input.body.config);
    await saveRepositoryConfigs(svc, configs, ctx.caller.username, ctx);
    return added;
  };
}
