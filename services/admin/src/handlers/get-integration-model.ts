import type { Handler } from '@nap/bus';
import { modelView } from '../domain/integrations';
import { methodsOf } from '../domain/openapi-model';
import type { AdminContext } from '../context';

/** `GET /integration-models/:name`: the model with the methods tasks call it by. */
export function getIntegrationModel(svc: AdminContext): Handler<'admin.getIntegrationModel'> {
  return async (input) => {
    const versionId = input.params.name;
    const doc = await svc.integrationModels.get(versionId);
    return { ...modelView(doc), methods: methodsOf((await svc.modelSources.get(versionId)).openapi, doc.defaultBasePath) };
  };
}
