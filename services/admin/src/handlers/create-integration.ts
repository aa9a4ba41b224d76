import { isDeepStrictEqual } from 'node:util';
import type { Handler } from '@nap/bus';
import { checkNotReservedKey } from '@nap/contracts';
import type { IntegrationSettings } from '@nap/contracts';
import { ownValue } from '@nap/util';
import { integrationView } from '../domain/integrations';
import { invalidMember } from '../domain/validation-error';
import { integrationHost, integrationRecordFor } from '../steps/integrations';
import type { AdminContext } from '../context';

/**
 * `POST /integrations`: an instance of a model with its connection settings, secrets sealed. Its
 * model is read and the integration written under the claim that deleting a model takes, so a model
 * deleted at the same time is either still there for it or refused (400) to it. ipctl's body (its
 * Integration struct) is taken too: the model in `properties.type` when `model` is empty, the
 * settings in `properties.properties`, the members the platform sets left to it.
 */
export function createIntegration(svc: AdminContext): Handler<'admin.createIntegration'> {
  return async (input, ctx) => {
    const { name, type, properties = {} } = input.body.properties;
    if (name === undefined) throw invalidMember('body.properties.name', 'is required');
    // an integration is kept by its name (the store's _id)
    checkNotReservedKey(name, 'body.properties.name', 'name');
    const { id, type: modelOfIpctl, properties: nested, ...direct } = properties;
    if (id !== undefined && id !== name) throw invalidMember('body.properties.properties.id', `is "${id}": it must be the name, "${name}"`);
    const model = input.body.properties.model || modelOfIpctl;
    if (model === undefined || model === '')
      throw invalidMember(
        'body.properties.model',
        'is required: the versionId of an integration model (or, as ipctl sends it, properties.type)',
      );
    // a setting given twice, beside `properties` and inside it, differently: which one was meant is not for NAP to guess
    const given: Readonly<Record<string, unknown>> = direct;
    for (const [key, value] of Object.entries(nested ?? {}))
      if (Object.hasOwn(given, key) && !isDeepStrictEqual(ownValue(given, key), value))
        throw invalidMember(
          `body.properties.properties.properties.${key}`,
          `differs from body.properties.properties.${key}: give the setting once`,
        );
    const settings: IntegrationSettings = { ...direct, ...nested };
    const doc = await svc.serialized.run('integration-models', ctx.deadline, async (held) => {
      const record = await integrationRecordFor(svc, { name, modelId: model, type, settings }, undefined, ctx.caller.username);
      await held.confirm();
      await svc.integrations.insert(record);
      return record;
    });
    // an integration is named by its name, as its other routes are audited
    ctx.audit({ target: { kind: 'integration', id: doc.name, name: doc.name } });
    return integrationView(doc, integrationHost(svc));
  };
}
