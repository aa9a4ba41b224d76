import type { Handler } from '@nap/bus';
import { withoutConfig } from '../domain/repository-configs';
import { repositoryConfigs, saveRepositoryConfigs } from '../steps/repositories';
import type { AdminContext } from '../context';

/** `DELETE /prebuilts-repository/configs/:name`: delete a repository configuration. */
export function deleteRepositoryConfig(svc: AdminContext): Handler<'admin.deleteRepositoryConfig'> {
  return async (input, ctx) => {
    await saveRepositoryConfigs(svc, withoutConfig(await repositoryConfigs(svc), input.params.name), ctx.caller.username, ctx);
    return { status: 'success', message: `Prebuilt repository "${input.params.name}" deleted` };
  };
}
