// Applications: their records, documents applied to them, their health.
import { APPLICATIONS, APPLICATION_NAMES, auditChanges } from '@nap/contracts';
import type { ApplicationChange, ApplicationHealth, ApplicationName, ApplicationRecord } from '@nap/contracts';
import type { AdminContext, AuditSink } from '../context';
import {
  applicationHealth,
  applicationNamed,
  applicationRecord,
  carriedOut,
  changedSettings,
  documentChanges,
} from '../domain/applications';
import type { ApplicationDocument } from '../domain/applications';

/** The application as `GET /applications/:name` answers it: its record and what its replicas report. */
export async function applicationRecordOf(svc: AdminContext, app: ApplicationName): Promise<ApplicationRecord> {
  const service = APPLICATIONS[app].service;
  const view = await svc.reconciler.view(service);
  return applicationRecord(app, view, view.states.get(service) ?? (await svc.applicationStates.get(service)));
}

/** Stores an application's description, loggerProps or live settings and has every replica apply them at once. */
export async function applyApplicationDocument(
  svc: AdminContext,
  app: ApplicationName,
  body: ApplicationDocument,
  by: string,
  audit?: AuditSink,
): Promise<ApplicationChange> {
  const service = APPLICATIONS[app].service;
  const before = await svc.applicationStates.get(service);
  const { set, said } = documentChanges(app, body);
  const after = await svc.applicationStates.change(service, set, `${said.join(', ') || 'nothing'} changed by ${by}`, by);
  auditApplicationChange(audit, app, before, after);
  const outcomes = carriedOut(await svc.reconciler.push(service), 'apply the settings of');
  const record = await applicationRecordOf(svc, app);
  return {
    ...record,
    changes: {
      applied: body.properties === undefined ? [] : changedSettings(before.properties, after.properties),
      replicas: outcomes.length,
      restartRequired: [],
    },
  };
}

/** Tells the audit trail what a change of an application's record changed (its own bookkeeping, the revision and changelog, left out). */
export function auditApplicationChange(audit: AuditSink | undefined, app: ApplicationName, before: unknown, after: unknown): void {
  audit?.audit({
    target: { kind: 'application', id: app, name: app },
    changes: auditChanges(before, after, { ignore: ['revision', 'changelog'] }),
  });
}

/** Health of every application (or of one, 404 when unknown), from discovery and the replicas' `$SRV.STATS`. */
export async function applicationsHealth(svc: AdminContext, name?: string): Promise<ApplicationHealth[]> {
  const names = name === undefined ? [...APPLICATION_NAMES] : [applicationNamed(name)];
  const only = name === undefined ? undefined : APPLICATIONS[names[0] as ApplicationName].service;
  const [replicas, stats] = await Promise.all([svc.replicas.discover(only), svc.replicas.stats(only)]);
  const states = await svc.applicationStates.all();
  const now = Date.now();
  return names.map((app) => applicationHealth(app, replicas, stats, states.get(APPLICATIONS[app].service), now));
}
