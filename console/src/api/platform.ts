import type { BodyOf, ResponseOf } from '@nap/contracts';
import { request } from './http';

/**
 * The platform's administration routes the Platform pages use (role `admin`), typed by
 * `@nap/contracts` (type imports only: no server code reaches the bundle). Each function is one
 * catalog route; the answers are the platform's own, secrets masked as it masks them.
 */

export type ApplicationList = ResponseOf<'admin.getApplications'>;
export type ApplicationRecord = ApplicationList['results'][number];
export type ApplicationHealthList = ResponseOf<'admin.getApplicationsHealth'>;
export type ApplicationHealth = ApplicationHealthList['results'][number];
export type ApplicationLifecycle = ResponseOf<'admin.startApplication'>;
export type AdapterList = ResponseOf<'admin.getAdapters'>;
export type AdapterRecord = ResponseOf<'admin.getAdapter'>;
export type AdapterHealthList = ResponseOf<'admin.getAdaptersHealth'>;
export type AdapterHealth = ResponseOf<'admin.getAdapterHealth'>;
export type AdapterLifecycle = ResponseOf<'admin.startAdapter'>;
export type AdapterChangelogs = ResponseOf<'admin.getAdapterChangelogs'>;
export type LoggerProps = ResponseOf<'admin.updateAdapterLogging'>;
export type LogLevel = BodyOf<'admin.updateAdapterLogging'>['properties']['level'];
export type IntegrationList = ResponseOf<'admin.getIntegrations'>;
export type IntegrationRecord = IntegrationList['results'][number];
export type HealthStatus = ResponseOf<'admin.getHealthStatus'>;
export type AuditPage = ResponseOf<'admin.getAudit'>;
export type AuditRecord = AuditPage['results'][number];

/** `GET /health/server`: the release, and the admin replica that answered (its process, the bus and store it uses). */
export type ServerHealth = ResponseOf<'admin.getServerHealth'>;

/** `GET /health/system`: the host of the admin replica that answered. */
export type SystemHealth = ResponseOf<'admin.getSystemHealth'>;

/** At most this many adapters and integrations are read (the platform's largest page). */
export const LIST_LIMIT = 500;

const enc = encodeURIComponent;

export const platform = {
  /** `GET /applications`: each application with its state from discovery and its replicas (`instances`). */
  applications: () => request<ApplicationList>('GET', '/applications', { query: { limit: LIST_LIMIT } }),
  /** `GET /health/applications`: each application's state, version and per-replica requests and errors. */
  applicationsHealth: () => request<ApplicationHealthList>('GET', '/health/applications', { query: { limit: LIST_LIMIT } }),
  /**
   * `PUT /applications/:name/start|stop|restart`: acts on every replica of the application's service,
   * and so on every application that service serves (the answer names them). 409
   * `APPLICATION_PROTECTED` for AdminEssentials' stop and restart; 502 `APPLICATION_CONTROL_FAILED`
   * when a replica did not carry it out.
   */
  changeApplication: (name: string, action: 'start' | 'stop' | 'restart') =>
    request<ApplicationLifecycle>('PUT', `/applications/${enc(name)}/${action}`),

  /** `GET /adapters`: the adapter documents (secrets `********`) with their state. */
  adapters: () => request<AdapterList>('GET', '/adapters', { query: { limit: LIST_LIMIT } }),
  /** `GET /health/adapters`: state, connection, uptime, last check and last error of each adapter. */
  adaptersHealth: () => request<AdapterHealthList>('GET', '/health/adapters', { query: { limit: LIST_LIMIT } }),
  /** `GET /adapters/:name`; 404 `ADAPTER_NOT_FOUND`. */
  adapter: (name: string) => request<AdapterRecord>('GET', `/adapters/${enc(name)}`),
  /** `GET /health/adapters/:name`. */
  adapterHealth: (name: string) => request<AdapterHealth>('GET', `/health/adapters/${enc(name)}`),
  /** `GET /adapters/:name/changelogs`: one entry per change of its document, newest first. */
  adapterChangelogs: (name: string) => request<AdapterChangelogs>('GET', `/adapters/${enc(name)}/changelogs`),
  /**
   * `PUT /adapters/:name/start|stop|restart`: answered at once with the state the change began
   * (STARTING, STOPPING); 409 `ADAPTER_STATE_CONFLICT` for a DELETED adapter.
   */
  changeAdapter: (name: string, action: 'start' | 'stop' | 'restart') =>
    request<AdapterLifecycle>('PUT', `/adapters/${enc(name)}/${action}`),
  /** `PUT /adapters/:name/loglevel` with no transport: the level is recorded for every output. */
  setAdapterLogLevel: (name: string, level: LogLevel) => {
    const body: BodyOf<'admin.updateAdapterLogging'> = { properties: { level } };
    return request<LoggerProps>('PUT', `/adapters/${enc(name)}/loglevel`, { body });
  },

  /** `GET /integrations`: the integrations (secrets `********`). */
  integrations: () => request<IntegrationList>('GET', '/integrations', { query: { limit: LIST_LIMIT } }),

  /** `GET /health/server`: the release and the admin replica that answered. */
  server: () => request<ServerHealth>('GET', '/health/server'),
  /** `GET /health/status`: the bus, the store (with its disk) and every application. */
  status: () => request<HealthStatus>('GET', '/health/status'),
  /** `GET /health/system`: the host of the admin replica that answered. */
  system: () => request<SystemHealth>('GET', '/health/system'),

  /** `GET /audit` of one kind of target (`adapter`), newest first: who started and stopped what, and when. */
  auditOfKind: (kind: string, limit: number) => request<AuditPage>('GET', '/audit', { query: { equals: { 'target.kind': kind }, limit } }),
  /** `GET /audit?targetId=…`: what was done to one target, newest first. */
  auditOfTarget: (id: string, limit: number) => request<AuditPage>('GET', '/audit', { query: { targetId: id, limit } }),
};
