import type { Handler } from '@nap/bus';
import { integrationView } from '../domain/integrations';
import { invalidMember } from '../domain/validation-error';
import { integrationRecordFor } from '../steps/integrations';
import type { AdminContext } from '../context';

/** `POST /integrations`: an instance of a model with its connection settings, secrets sealed. */
export function createIntegration(svc: AdminContext): Handler<'admin.createIntegration'> {
  return async (input, ctx) => {
    const { name, model, type, properties } = input.body.properties;
    if (name === undefined) throw invalidMember('body.properties.name', 'is required');
    if (model === undefined) throw invalidMember('body.properties.model', 'is required: the versionId of an integration model');
    const doc = await integrationRecordFor(svc, { name, modelId: model, type, settings: properties ?? {} }, undefined, ctx.caller.username);
    await svc.integrations.insert(doc);
    return integrationView(doc);
  };
}
