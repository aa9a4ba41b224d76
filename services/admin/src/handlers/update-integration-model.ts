import type { Handler } from '@nap/bus';
import { checkUnused, modelRecordOf, modelView, validModel, versionIdOf } from '../domain/integrations';
import type { AdminContext } from '../context';

/** `PUT /integration-models`: replaces the document of a model that no integration uses (checked and written under the integration-models claim). */
export function updateIntegrationModel(svc: AdminContext): Handler<'admin.updateIntegrationModel'> {
  return async (input, ctx) => {
    const document = input.body.model;
    const check = await validModel(document);
    const versionId = versionIdOf(document);
    const doc = await svc.serialized.run('integration-models', ctx.deadline, async (held) => {
      const current = await svc.integrationModels.get(versionId);
      checkUnused(versionId, 'replaced', await svc.integrations.usersOf(versionId));
      const replacement = {
        ...modelRecordOf(document, check, ctx.caller.username, new Date().toISOString()),
        created: current.created,
        createdBy: current.createdBy,
      };
      await held.confirm();
      await svc.modelSources.put(versionId, { document, openapi: check.openapi });
      await svc.integrationModels.replace(replacement);
      return replacement;
    });
    svc.integrationCalls.forgetModel(versionId);
    return modelView(doc);
  };
}
