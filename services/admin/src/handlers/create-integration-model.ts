import type { Handler } from '@nap/bus';
import { modelRecordOf, modelView, validModel } from '../domain/integrations';
import type { AdminContext } from '../context';

/** `POST /integration-models`: an OpenAPI document (2.0 converted to 3.x) as a model named `<info.title>:<info.version>`, answered `{ status, message, data }` as ipctl reads it. */
export function createIntegrationModel(svc: AdminContext): Handler<'admin.createIntegrationModel'> {
  return async (input, ctx) => {
    const document = input.body.model;
    const check = await validModel(document);
    const doc = modelRecordOf(document, check, ctx.caller.username, new Date().toISOString());
    // under the claim a deletion of the same versionId takes: its record and sources never end up apart
    await svc.serialized.run('integration-models', ctx.deadline, async (held) => {
      await svc.integrationModels.assertFree(doc._id);
      await held.confirm();
      // the sources first: a record is never there without them
      await svc.modelSources.put(doc._id, { document, openapi: check.openapi });
      await svc.integrationModels.insert(doc);
    });
    return { status: 'Created', message: `Integration model "${doc.versionId}" created`, data: modelView(doc) };
  };
}
