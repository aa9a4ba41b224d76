// Adapters: added, changed, and called through.
import { AppError, adapterDataSchema, auditChanges, checkNotReservedKey, escapeUnprintable, parseAs } from '@nap/contracts';
import type { AdapterData, AdapterRecord, OutboundResponse } from '@nap/contracts';
import type { AdminContext, AuditSink } from '../context';
import {
  adapterSettingsOf,
  adapterTarget,
  adapterView,
  newAdapterDoc,
  outboundOf,
  sealedAdapterData,
  withCredentials,
} from '../domain/adapters';
import type { AdapterRequest } from '../domain/adapters';
import { invalidMember } from '../domain/validation-error';

/** Stores a new adapter, STOPPED (in place of a deleted one of that name); `how` goes to its changelog. */
export async function addAdapter(svc: AdminContext, input: AdapterData, by: string, how: 'created' | 'imported'): Promise<AdapterRecord> {
  // an adapter is kept by its name (the store's _id, the monitor's maps)
  checkNotReservedKey(input.name, 'body.properties.name', 'name');
  const existing = await svc.adapters.find(input.name);
  if (existing !== null && existing.state !== 'DELETED') throw new AppError('ADAPTER_ALREADY_EXISTS', `An adapter "${input.name}" exists`);
  const doc = newAdapterDoc(input.name, sealedAdapterData(input, undefined, svc.secrets), by, how, new Date().toISOString());
  await svc.adapters.create(doc, existing !== null);
  svc.adapterMonitor.drop(input.name);
  await svc.adapterMonitor.announce(input.name, 'created', 'STOPPED');
  return adapterView(doc, svc.adapterMonitor.runtime(input.name));
}

/** Replaces the adapter document (`data`), or only its connection settings (`settings`); a running adapter restarts with it. */
export async function changeAdapter(
  svc: AdminContext,
  name: string,
  change: { data: AdapterData } | { settings: Record<string, unknown> },
  by: string,
  audit?: AuditSink,
): Promise<AdapterRecord> {
  const current = await svc.adapters.getLive(name);
  let data: AdapterData;
  if ('data' in change) {
    if (change.data.name !== name)
      throw invalidMember('body.properties.name', `is "${escapeUnprintable(change.data.name)}"; an adapter keeps its name ("${name}")`);
    data = change.data;
  } else {
    const currentData = parseAs(adapterDataSchema, current.data);
    data = { ...currentData, properties: { ...currentData.properties, properties: change.settings } };
  }
  const now = new Date().toISOString();
  const version = current.version + 1;
  const updated = await svc.adapters.update(
    name,
    current.version,
    {
      data: sealedAdapterData(data, current.data, svc.secrets, 'data' in change ? undefined : 'body.properties'),
      version,
      lastUpdated: now,
      lastUpdatedBy: by,
    },
    { version: String(version), date: now, changes: `${'data' in change ? 'document' : 'connection settings'} updated by ${by}` },
  );
  audit?.audit({ target: { kind: 'adapter', id: name, name }, changes: auditChanges(current.data, updated.data) });
  await svc.adapterMonitor.announce(name, 'updated', svc.adapterMonitor.runtime(name)?.state ?? updated.state);
  if (updated.state === 'RUNNING') svc.adapterMonitor.relaunch(updated);
  return adapterView(updated, svc.adapterMonitor.runtime(name));
}

/** One request through a RUNNING adapter, its authentication added; answers whatever the system answered. */
export async function callThroughAdapter(
  svc: AdminContext,
  name: string,
  req: AdapterRequest,
  noBasePath = false,
): Promise<OutboundResponse> {
  const doc = await svc.adapters.getLive(name);
  const state = svc.adapterMonitor.runtime(name)?.state;
  if (state !== 'RUNNING')
    throw new AppError(
      'ADAPTER_NOT_RUNNING',
      `Adapter "${name}" is ${state ?? 'STOPPED'}, not RUNNING; start it (or restart it once its system answers)`,
    );
  const target = adapterTarget(doc, svc.secrets, noBasePath);
  const { credentialsAt, ...rest } = req;
  const request =
    credentialsAt === undefined ? rest : { ...rest, body: withCredentials(name, req.body, credentialsAt, target.authentication) };
  const { path, headers, body, timeoutMs } = outboundOf(request, adapterSettingsOf(doc), svc.settings.integrationTimeoutMs);
  const started = Date.now();
  const answer = await svc.http.send(target, { method: req.method, path, headers, body, timeoutMs });
  svc.adapterMonitor
    .loggerOf(doc)
    .debug({ adapter: name, method: req.method, path: req.path, status: answer.status, ms: Date.now() - started }, 'Adapter call answered');
  return answer;
}
