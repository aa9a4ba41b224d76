import type { Handler } from '@nap/bus';
import { integrationView } from '../domain/integrations';
import { invalidMember } from '../domain/validation-error';
import { integrationHost, integrationRecordFor } from '../steps/integrations';
import type { AdminContext } from '../context';

/**
 * `POST /integrations`: an instance of a model with its connection settings, secrets sealed. Its
 * model is read and the integration written under the claim that deleting a model takes, so a model
 * deleted at the same time is either still there for it or refused (400) to it.
 */
export function createIntegration(svc: AdminContext): Handler<'admin.createIntegration'> {
  return async (input, ctx) => {
    const { name, model, type, properties } = input.body.properties;
    if (name === undefined) throw invalidMember('body.properties.name', 'is required');
    if (model === undefined) throw invalidMember('body.properties.model', 'is required: the versionId of an integration model');
    const doc = await svc.serialized.run('integration-models', ctx.deadline, async (held) => {
      const record = await integrationRecordFor(
        svc,
        { name, modelId: model, type, settings: properties ?? {} },
        undefined,
        ctx.caller.username,
      );
      await held.confirm();
      await svc.integrations.insert(record);
      return record;
    });
    return integrationView(doc, integrationHost(svc));
  };
}
