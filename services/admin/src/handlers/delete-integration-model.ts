import type { Handler } from '@nap/bus';
import { checkUnused } from '../domain/integrations';
import type { AdminContext } from '../context';

/** `DELETE /integration-models/:name`: a model that no integration uses. */
export function deleteIntegrationModel(svc: AdminContext): Handler<'admin.deleteIntegrationModel'> {
  return async (input) => {
    const versionId = input.params.name;
    const current = await svc.integrationModels.get(versionId);
    checkUnused(versionId, 'deleted', await svc.integrations.usersOf(versionId));
    await svc.integrationModels.delete(versionId);
    await svc.modelSources.delete(versionId);
    svc.integrationCalls.forgetModel(versionId);
    return { status: 'success', message: `Integration model "${current.versionId}" deleted` };
  };
}
