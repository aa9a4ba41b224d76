import { isDeepStrictEqual } from 'node:util';
import {
  APPLICATIONS,
  APPLICATION_NAMES,
  AppError,
  LOG_LEVELS,
  PROTECTED_APPLICATION,
  SERVICE_SETTINGS_SCHEMAS,
  applicationsOfService,
  instanceStatusSchema,
  isApplicationName,
  isLogLevel,
  isValid,
  parseAs,
} from '@nap/contracts';
import type {
  ApplicationHealth,
  ApplicationName,
  ApplicationRecord,
  ApplicationState,
  InstanceStatus,
  LogLevel,
  LoggerProps,
  ServiceName,
} from '@nap/contracts';
import type { ServiceStats } from '@nap/bus';
import type { ServiceStateRecord } from '../store/application-states';
import { invalidMember } from './validation-error';

/**
 * Applications: the platform's own services under the names the original platform gives them.
 * Their state comes from live discovery of each service's replicas; what operators set (stopped,
 * log level, live settings) is stored by the admin service and carried to every replica over its
 * control channel.
 */

/** One replica of a service as discovery shows it. */
export interface Replica {
  service: ServiceName;
  /** Registration id (changes on pause and resume). */
  id: string;
  /** The replica's own id: its control subject. */
  instance: string;
  state: 'running' | 'paused';
  version: string;
  started: string;
  endpoints: number;
}

/** The outcome of a command sent to one replica. */
export type ReplicaOutcome<T> = { replica: Replica; ok: true; result: T } | { replica: Replica; ok: false; error: AppError };

/** The live parts of the active profile that reach the services. */
export interface ProfileLiveSettings {
  /** `loggerProps.console_level` (else `log_level`) of the active profile. */
  logLevel?: LogLevel;
  /** Settings of the admin service the profile gives (`sessionIdleMinutes`, `integrationTimeoutMs`). */
  admin: Record<string, unknown>;
  /** Settings of the workflow service the profile gives (`jobRetentionDays`). */
  workflow?: Record<string, unknown>;
}

/** What every replica of a service should be: what a `configure` command carries. */
export interface Desired {
  paused: boolean;
  logLevel?: LogLevel;
  settings: Record<string, unknown>;
  revision: number;
  /** Compares two desired states. */
  key: string;
}

/** Discovery, each replica's own account of itself, the stored records and what each service should be. */
export interface ApplicationsView {
  replicas: Replica[];
  states: Map<ServiceName, ServiceStateRecord>;
  statuses: Map<string, InstanceStatus>;
  desired: Map<ServiceName, Desired>;
}

/** What `PUT /applications/:name` and `PUT …/properties` may change. */
export interface ApplicationDocument {
  description?: string;
  loggerProps?: LoggerProps;
  properties?: Record<string, unknown>;
}

/** The application of that name, or 404 listing the applications. */
export function applicationNamed(name: string): ApplicationName {
  if (!isApplicationName(name))
    throw new AppError('APPLICATION_NOT_FOUND', `No application named "${name}"; the applications are ${APPLICATION_NAMES.join(', ')}`);
  return name;
}

/** The application of that name, unless its service serves the protected application (which answers login and these routes). */
export function unprotectedApplication(name: string, what: string): ApplicationName {
  const app = applicationNamed(name);
  const service = APPLICATIONS[app].service;
  if (service === APPLICATIONS[PROTECTED_APPLICATION].service) {
    throw new AppError(
      'APPLICATION_PROTECTED',
      `${app} cannot be ${what}: its service (${service}) serves ${PROTECTED_APPLICATION}, which answers login and these administration routes; stopping it would lock every operator out`,
    );
  }
  return app;
}

/** What every replica of the service should be: the operator's record over the active profile's live settings. */
export function desiredOf(service: ServiceName, state: ServiceStateRecord, profile: ProfileLiveSettings): Desired {
  const fromProfile = service === 'admin' ? profile.admin : service === 'workflow' ? (profile.workflow ?? {}) : {};
  const settings = { ...fromProfile, ...state.properties };
  const logLevel = state.logLevel ?? profile.logLevel;
  const want: Omit<Desired, 'key'> = {
    paused: state.stopped,
    settings,
    revision: state.revision,
    ...(logLevel !== undefined ? { logLevel } : {}),
  };
  return { ...want, key: JSON.stringify([want.paused, want.logLevel ?? null, want.settings]) };
}

/** The `configure` command that brings a replica to the desired state. */
export function configureCommand(want: Desired) {
  // no level set by an operator or the active profile: each replica goes back to the level it started with
  return {
    command: 'configure' as const,
    revision: want.revision,
    paused: want.paused,
    settings: want.settings,
    logLevel: want.logLevel ?? null,
  };
}

export function stateOf(replicas: Replica[], state: ServiceStateRecord | undefined): ApplicationState {
  if (replicas.some((r) => r.state === 'running')) return 'RUNNING';
  if (state?.stopped === true || replicas.length > 0) return 'STOPPED';
  return 'DEAD';
}

/** True when every replica of the service answers that it is as it should be. */
export function inSyncOf(service: ServiceName, view: ApplicationsView): boolean {
  const want = view.desired.get(service);
  const mine = view.replicas.filter((r) => r.service === service);
  if (want === undefined || mine.length === 0) return false;
  return mine.every((r) => {
    const status = view.statuses.get(r.instance);
    if (status === undefined || status.state !== (want.paused ? 'paused' : 'running')) return false;
    if (want.logLevel !== undefined && status.logLevel !== want.logLevel) return false;
    return Object.entries(want.settings).every(([k, v]) => isDeepStrictEqual(status.settings[k], v));
  });
}

/** The application as `GET /applications/:name` answers it. */
export function applicationRecord(app: ApplicationName, view: ApplicationsView, state: ServiceStateRecord): ApplicationRecord {
  const service = APPLICATIONS[app].service;
  const mine = view.replicas.filter((r) => r.service === service);
  const level =
    view.desired.get(service)?.logLevel ?? mine.map((r) => view.statuses.get(r.instance)?.logLevel).find((l) => l !== undefined);
  return {
    metadata: {
      isActive: !state.stopped,
      activeSync: inSyncOf(service, view),
      state: stateOf(mine, state),
      service,
      applications: applicationsOfService(service),
    },
    data: {
      name: app,
      type: 'Application',
      model: `@nap/${service}`,
      description: state.descriptions[app] ?? APPLICATIONS[app].description,
      isEncrypted: false,
      loggerProps: { ...(level !== undefined ? { log_level: level, console_level: level } : {}), ...state.loggerProps },
      properties: { ...state.properties },
    },
    instances: mine.map((r) => ({ id: r.id, instance: r.instance, state: r.state, version: r.version, started: r.started })),
  };
}

/** Health of an application from discovery and its replicas' `$SRV.STATS`, at `now` (epoch ms). */
export function applicationHealth(
  app: ApplicationName,
  replicas: Replica[],
  stats: ServiceStats[],
  state: ServiceStateRecord | undefined,
  now: number,
): ApplicationHealth {
  const service = APPLICATIONS[app].service;
  const mine = replicas.filter((r) => r.service === service);
  return {
    id: app,
    name: app,
    type: 'Application',
    service,
    state: stateOf(mine, state),
    version: mine[0]?.version ?? null,
    endpoints: Math.max(0, ...mine.map((r) => r.endpoints)),
    instances: mine.map((r) => {
      const s = stats.find((x) => x.id === r.id);
      const requests = s?.endpoints.reduce((n, e) => n + e.num_requests, 0) ?? 0;
      const processingNs = s?.endpoints.reduce((n, e) => n + e.processing_time, 0) ?? 0;
      const started = s?.started ?? r.started;
      return {
        id: r.id,
        state: r.state,
        version: r.version,
        started,
        uptimeSeconds: Math.max(0, Math.round((now - Date.parse(started)) / 1000)) || 0,
        requests,
        errors: s?.endpoints.reduce((n, e) => n + e.num_errors, 0) ?? 0,
        averageProcessingMs: requests ? processingNs / requests / 1e6 : 0,
      };
    }),
  };
}

/** The answer of a start, stop or restart: the state the replicas report after it (502 when some did not carry it out). */
export function lifecycleOf(app: ApplicationName, outcomes: ReplicaOutcome<unknown>[]) {
  carriedOut(outcomes, 'change');
  const service = APPLICATIONS[app].service;
  const states = outcomes.flatMap((o) => (o.ok && isValid(instanceStatusSchema, o.result) ? [o.result.state] : []));
  const state: ApplicationState = states.includes('running') ? 'RUNNING' : states.length > 0 ? 'STOPPED' : 'DEAD';
  return { name: app, state, service, applications: applicationsOfService(service), replicas: outcomes.length };
}

/** The outcomes when every replica carried out the command; 502 naming each one that did not. */
export function carriedOut(outcomes: ReplicaOutcome<unknown>[], what: string): ReplicaOutcome<unknown>[] {
  const bad = outcomes.filter((o): o is Extract<ReplicaOutcome<unknown>, { ok: false }> => !o.ok);
  if (bad.length === 0) return outcomes;
  const service = bad[0]?.replica.service ?? '';
  throw new AppError(
    'APPLICATION_CONTROL_FAILED',
    `${bad.length} of ${outcomes.length} replicas of ${service} did not ${what} the service: ${bad.map((b) => `${b.replica.instance}: ${b.error.message}`).join('; ')}. The others did; the platform keeps trying.`,
    { details: bad.map((b) => ({ instance: b.replica.instance, code: b.error.code, message: b.error.message })) },
  );
}

/** The members an application document sets, and what the changelog says of them. */
export function documentChanges(app: ApplicationName, body: ApplicationDocument): { set: Record<string, unknown>; said: string[] } {
  const service = APPLICATIONS[app].service;
  const set: Record<string, unknown> = {};
  const said: string[] = [];
  if (body.properties !== undefined) {
    set.properties = liveSettingsOf(service, body.properties);
    said.push(`settings ${JSON.stringify(set.properties)}`);
  }
  if (body.loggerProps !== undefined) {
    const level = body.loggerProps.console_level ?? body.loggerProps.log_level;
    if (level !== undefined && !isLogLevel(level))
      throw invalidMember(
        `body.properties.loggerProps.${body.loggerProps.console_level !== undefined ? 'console_level' : 'log_level'}`,
        `must be one of ${LOG_LEVELS.join(', ')}`,
      );
    set.loggerProps = body.loggerProps;
    if (level !== undefined) set.logLevel = level;
    said.push('loggerProps');
  }
  if (body.description !== undefined) {
    set[`descriptions.${app}`] = body.description;
    said.push('description');
  }
  return { set, said };
}

/** Names of the live settings that differ between two records' properties, sorted. */
export function changedSettings(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  return Object.keys({ ...before, ...after })
    .filter((k) => !isDeepStrictEqual(before[k], after[k]))
    .sort();
}

/** The live settings, checked against the service's schema; an unknown member is 400 naming it. */
function liveSettingsOf(service: ServiceName, properties: Record<string, unknown>): Record<string, unknown> {
  const schema = SERVICE_SETTINGS_SCHEMAS[service];
  const unknown = Object.keys(properties).filter((k) => !Object.hasOwn(schema.properties, k));
  if (unknown.length > 0) {
    const known = Object.keys(schema.properties);
    throw new AppError(
      'VALIDATION_FAILED',
      `body.properties.${unknown[0] ?? ''} is not a live setting of ${service} (${known.length ? `its live settings: ${known.join(', ')}` : 'it has none'}); its other settings are NAP_* variables read when the process starts, and need a restart`,
      { details: unknown.map((k) => ({ member: `body.properties.${k}`, message: 'is not a live setting' })) },
    );
  }
  const parsed: unknown = parseAs(schema, { ...properties }, 'body.properties');
  return typeof parsed === 'object' && parsed !== null ? { ...parsed } : {};
}
