import type { Handler } from '@nap/bus';
import { integrationSchemaOf } from '../domain/integrations';
import type { AdminContext } from '../context';

/** `GET /schema/integrations/:name`: the JSON Schema of the properties, with the server of its model as an example. */
export function getIntegrationSchema(svc: AdminContext): Handler<'admin.getIntegrationSchema'> {
  return async (input) => {
    const doc = await svc.integrations.get(input.params.name);
    return integrationSchemaOf(doc, await svc.integrationModels.get(doc.model));
  };
}
