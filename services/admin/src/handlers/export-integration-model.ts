import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** `GET /integration-models/:name/export`: the OpenAPI document as it was imported. */
export function exportIntegrationModel(svc: AdminContext): Handler<'admin.exportIntegrationModel'> {
  return async (input) => {
    await svc.integrationModels.get(input.params.name);
    return (await svc.modelSources.get(input.params.name)).document;
  };
}
