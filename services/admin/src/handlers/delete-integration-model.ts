import type { Handler } from '@nap/bus';
import { checkUnused } from '../domain/integrations';
import type { AdminContext } from '../context';

/** `DELETE /integration-models/:name`: a model that no integration uses (checked and deleted under the claim that creating an integration takes). */
export function deleteIntegrationModel(svc: AdminContext): Handler<'admin.deleteIntegrationModel'> {
  return async (input, ctx) => {
    const versionId = input.params.name;
    const current = await svc.serialized.run('integration-models', ctx.deadline, async (held) => {
      const model = await svc.integrationModels.get(versionId);
      checkUnused(versionId, 'deleted', await svc.integrations.usersOf(versionId));
      await held.confirm();
      await svc.integrationModels.delete(versionId);
      await svc.modelSources.delete(versionId);
      return model;
    });
    svc.integrationCalls.forgetModel(versionId);
    return { status: 'success', message: `Integration model "${current.versionId}" deleted` };
  };
}
