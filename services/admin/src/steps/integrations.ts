// Integrations: records and changes.
import { auditChanges } from '@nap/contracts';
import type { IntegrationRecord, IntegrationSettings } from '@nap/contracts';
import type { AdminContext, AuditSink } from '../context';
import { integrationRecordOf, integrationView } from '../domain/integrations';
import type { IntegrationProperties } from '../domain/integrations';
import { maskSettings } from '../domain/sealed-settings';
import { invalidMember } from '../domain/validation-error';
import type { IntegrationDoc } from '../store/integrations';

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

/** Replaces an integration's model, type or properties (`PUT /integrations/:name` and `…/properties`); the name stays. */
export async function changeIntegration(
  svc: AdminContext,
  name: string,
  input: IntegrationProperties,
  by: string,
  audit?: AuditSink,
): Promise<IntegrationRecord> {
  const current = await svc.integrations.get(name);
  if (input.name !== undefined && input.name !== name)
    throw invalidMember('body.properties.name', `is "${input.name}"; an integration keeps its name ("${name}")`);
  const settings = input.properties ?? (maskSettings(current.settings) as IntegrationSettings);
  const doc = await integrationRecordFor(
    svc,
    { name, modelId: input.model ?? current.model, type: input.type ?? current.type, settings },
    current,
    by,
  );
  await svc.integrations.replace(doc);
  audit?.audit({ target: { kind: 'integration', id: name, name }, changes: auditChanges(current, doc) });
  svc.integrationCalls.forgetIntegration(current);
  return integrationView(doc);
}
