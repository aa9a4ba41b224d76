// Integrations: records and changes.
import { getHeapStatistics } from 'node:v8';
import { auditChanges, escapeUnprintable } from '@nap/contracts';
import type { IntegrationRecord, IntegrationSettings } from '@nap/contracts';
import type { AdminContext, AuditSink } from '../context';
import { integrationRecordOf, integrationView } from '../domain/integrations';
import type { IntegrationHost, IntegrationProperties } from '../domain/integrations';
import { maskSettings } from '../domain/sealed-settings';
import { invalidMember } from '../domain/validation-error';
import type { IntegrationDoc } from '../store/integrations';

/** What this process holds for every integration it calls: its log level now and its heap limit. */
export function integrationHost(svc: AdminContext): IntegrationHost {
  return { logLevel: svc.log.level, maxOldSpaceSizeMb: Math.round(getHeapStatistics().heap_size_limit / 1_048_576) };
}

/** An integration as stored for these properties (its model must exist), replacing `current` when given. */
export async function integrationRecordFor(
  svc: AdminContext,
  spec: { name: string; modelId: string; type: string | undefined; settings: IntegrationSettings },
  current: IntegrationDoc | undefined,
  by: string,
): Promise<IntegrationDoc> {
  const model = await svc.integrationModels.find(spec.modelId);
  return integrationRecordOf(spec, model, current, svc.secrets, by, new Date().toISOString());
}

/**
 * Replaces an integration's model, type or properties (`PUT /integrations/:name` and `…/properties`);
 * the name stays. Read and written under the integration-models claim (`deadline`: the request's),
 * so the model it names is not deleted meanwhile.
 */
export async function changeIntegration(
  svc: AdminContext,
  name: string,
  input: IntegrationProperties,
  by: string,
  deadline: number,
  audit?: AuditSink,
): Promise<IntegrationRecord> {
  const { current, doc } = await svc.serialized.run('integration-models', deadline, async (held) => {
    const current = await svc.integrations.get(name);
    if (input.name !== undefined && input.name !== name)
      throw invalidMember('body.properties.name', `is "${escapeUnprintable(input.name)}"; an integration keeps its name ("${name}")`);
    const settings = input.properties ?? (maskSettings(current.settings) as IntegrationSettings);
    const doc = await integrationRecordFor(
      svc,
      { name, modelId: input.model ?? current.model, type: input.type ?? current.type, settings },
      current,
      by,
    );
    await held.confirm();
    await svc.integrations.replace(doc);
    return { current, doc };
  });
  audit?.audit({ target: { kind: 'integration', id: name, name }, changes: auditChanges(current, doc) });
  svc.integrationCalls.forgetIntegration(current);
  return integrationView(doc, integrationHost(svc));
}
