// the platform's application table and its one secret mask are pure modules of the contracts (no server code)
import { PROTECTED_APPLICATION } from '@nap/contracts/dist/applications';
import { SECRET_MASK } from '@nap/contracts/dist/secrets';
import type {
  AdapterHealth,
  AdapterRecord,
  ApplicationHealth,
  ApplicationRecord,
  AuditRecord,
  HealthStatus,
  IntegrationRecord,
} from '../../api/platform';
import { isRecord } from '../../api/records';

/**
 * What the Platform pages say of the platform's state: its services, adapters, bus and store as
 * rows with a tone (a problem, stopped by an operator, changing, healthy), problems first, and the
 * summary line above them. Pure rules (no React): the pages and their tests read the same ones.
 */

/** How a component stands, from worst to best: the order the tables list them in. */
export const TONES = ['problem', 'stopped', 'changing', 'ok'] as const;
export type Tone = (typeof TONES)[number];

/** The console's status shape and colour of each tone (`StatusBadge`): a cross, a pause, a half circle, a tick. */
export const TONE_BADGE: { readonly [T in Tone]: 'error' | 'paused' | 'pending' | 'complete' } = {
  problem: 'error',
  stopped: 'paused',
  changing: 'pending',
  ok: 'complete',
};

const order = (tone: Tone) => TONES.indexOf(tone);

/** Rows problems first, then stopped, changing and healthy; by name within a tone. */
export function byTone<Row extends { tone: Tone; name: string }>(rows: readonly Row[]): Row[] {
  return [...rows].sort((a, b) => order(a.tone) - order(b.tone) || a.name.localeCompare(b.name));
}

// ---------- applications: one row a service (its applications start and stop together) ----------

/** One of the platform's six services, under the names of the applications it serves. */
export interface ServiceRow {
  /** The applications it serves, alphabetical, joined: what the row is called. */
  name: string;
  service: string;
  applications: string[];
  /** The application the actions name: any one of them acts on the whole service. */
  actionName: string;
  /** RUNNING, STOPPED or DEAD, from discovery. */
  state: string;
  tone: Tone;
  /** Replicas taking requests, and replicas alive but paused. */
  running: number;
  paused: number;
  /** The versions its replicas run (more than one during an upgrade). */
  versions: string[];
  /** Every replica is in the state, at the log level and with the settings operators set. */
  inSync: boolean;
  /** Since when its longest-serving replica runs (started again by an operator, or since its process began), epoch ms. */
  upSince: number | undefined;
  /** Requests and errors its replicas served since they started (the NATS services framework's counts). */
  requests: number | undefined;
  errors: number | undefined;
  /** AdminEssentials' service: it serves log-in and these routes, and refuses to be stopped or restarted. */
  isProtected: boolean;
}

/** The applications' records and health, one row a service. */
export function serviceRows(records: readonly ApplicationRecord[], health: readonly ApplicationHealth[]): ServiceRow[] {
  const byService = new Map<string, ApplicationRecord[]>();
  for (const record of records) {
    const list = byService.get(record.metadata.service) ?? [];
    list.push(record);
    byService.set(record.metadata.service, list);
  }
  const rows: ServiceRow[] = [];
  for (const [service, list] of byService) {
    const first = list[0];
    if (first === undefined) continue;
    const applications = list.map((r) => r.data.name).sort((a, b) => a.localeCompare(b));
    const replicas = new Map(first.instances.map((instance) => [instance.instance ?? instance.id, instance]));
    const running = [...replicas.values()].filter((i) => i.state === 'running');
    const stats = health.find((h) => h.service === service);
    // since when each running replica serves: its health says since it was last started (an
    // operator's Stop and Start, which leave the process running); its record, since the process began
    const served = new Map((stats?.instances ?? []).map((i) => [i.id, Date.parse(i.started ?? '')]));
    const starts = running
      .map((i) => {
        const since = served.get(i.id);
        return since !== undefined && Number.isFinite(since) ? since : Date.parse(i.started ?? '');
      })
      .filter(Number.isFinite);
    const state = first.metadata.state;
    const inSync = list.every((r) => r.metadata.activeSync);
    rows.push({
      name: applications.join(', '),
      service,
      applications,
      actionName: first.data.name,
      state,
      tone: state === 'DEAD' ? 'problem' : state === 'STOPPED' ? 'stopped' : inSync ? 'ok' : 'changing',
      running: running.length,
      paused: replicas.size - running.length,
      versions: [...new Set([...replicas.values()].map((i) => i.version).filter((v): v is string => typeof v === 'string'))].sort(),
      inSync,
      upSince: starts.length > 0 ? Math.min(...starts) : undefined,
      requests: stats?.instances.reduce((sum, i) => sum + i.requests, 0),
      errors: stats?.instances.reduce((sum, i) => sum + i.errors, 0),
      isProtected: applications.includes(PROTECTED_APPLICATION),
    });
  }
  return byTone(rows);
}

/** What the platform does to a service, by its state. */
export type LifecycleAction = 'start' | 'stop' | 'restart';

/**
 * The actions a service offers: a RUNNING one stops and restarts (not AdminEssentials', which
 * refuses both), a STOPPED one starts; a DEAD one has no replica to tell anything.
 */
export function serviceActions(row: Pick<ServiceRow, 'state' | 'isProtected'>): LifecycleAction[] {
  if (row.state === 'STOPPED') return ['start'];
  if (row.state === 'RUNNING' && !row.isProtected) return ['restart', 'stop'];
  return [];
}

// ---------- adapters ----------

/** An adapter as the page lists it: its health and its document together. */
export interface AdapterRow {
  name: string;
  type: string | undefined;
  model: string | undefined;
  state: string;
  /** ONLINE, OFFLINE, or UNKNOWN before the first check and while stopped. */
  connection: string;
  tone: Tone;
  /** The last failed connection check, as the platform words it. */
  lastError: { message: string; at: string } | undefined;
  lastCheck: string | undefined;
  /** Since when it is in its state, epoch ms, where the platform says: RUNNING from its uptime, DEAD from its last failed check, STOPPED from the audit trail. */
  since: number | undefined;
  /** Who stopped it (the audit trail), for a STOPPED adapter. */
  stoppedBy: string | undefined;
}

/** The tone of an adapter: DEAD, or RUNNING with its connection failing, is a problem. */
export function adapterTone(state: string, connection: string): Tone {
  if (state === 'DEAD') return 'problem';
  if (state === 'RUNNING') return connection === 'OFFLINE' ? 'problem' : 'ok';
  if (state === 'STOPPED') return 'stopped';
  return 'changing';
}

/** The latest change of state of each target in audit records (newest first): who and when, and the state it went to. */
export function lastStateChanges(records: readonly AuditRecord[]): Map<string, { by: string; at: string; state: string }> {
  const found = new Map<string, { by: string; at: string; state: string }>();
  for (const record of records) {
    const name = record.target?.name ?? record.target?.id;
    if (name === undefined || found.has(name)) continue;
    const change = record.changes?.find((c) => c.member === 'state');
    if (change === undefined || typeof change.after !== 'string') continue;
    const by = record.actor.username ?? record.actor.kind;
    found.set(name, { by, at: record.timestamp, state: change.after });
  }
  return found;
}

/**
 * The adapters as the page lists them (a DELETED one is gone, not listed), problems first.
 * `readAt` is when the health was read (its uptime counts to then), epoch ms.
 */
export function adapterRows(
  health: readonly AdapterHealth[],
  records: readonly AdapterRecord[],
  audit: readonly AuditRecord[],
  readAt: number,
): AdapterRow[] {
  const docs = new Map(records.map((r) => [r.data.name, r]));
  const changes = lastStateChanges(audit);
  const rows = health
    .filter((h) => h.state !== 'DELETED')
    .map((h): AdapterRow => {
      const change = changes.get(h.name);
      const stopped = h.state === 'STOPPED' && change?.state === 'STOPPED' ? change : undefined;
      let since: number | undefined;
      if (h.state === 'RUNNING' && h.uptime > 0) since = readAt - h.uptime * 1000;
      else if (h.state === 'DEAD' && h.lastError) since = Date.parse(h.lastError.at);
      else if (stopped) since = Date.parse(stopped.at);
      return {
        name: h.name,
        type: h.type ?? docs.get(h.name)?.data.properties.type,
        model: docs.get(h.name)?.data.model,
        state: h.state,
        connection: h.connection.state,
        tone: adapterTone(h.state, h.connection.state),
        lastError: h.lastError ?? undefined,
        lastCheck: h.lastCheck ?? undefined,
        since: since !== undefined && Number.isFinite(since) ? since : undefined,
        stoppedBy: stopped?.by,
      };
    });
  return byTone(rows);
}

/**
 * The actions an adapter offers: a RUNNING one stops and restarts, a STARTING one stops, a
 * STOPPED one starts, a DEAD one restarts (what brings it back once its system answers); a
 * STOPPING one is left to finish.
 */
export function adapterActions(state: string): LifecycleAction[] {
  switch (state) {
    case 'RUNNING':
      return ['restart', 'stop'];
    case 'STARTING':
      return ['stop'];
    case 'STOPPED':
      return ['start'];
    case 'DEAD':
      return ['restart'];
    default:
      return [];
  }
}

/** True while an adapter's state is changing: the pages read it again sooner until it settles. */
export function isChanging(state: string): boolean {
  return state === 'STARTING' || state === 'STOPPING';
}

/** How a connection check is made, with the platform's defaults (`healthcheck` of the adapter's settings). */
export interface HealthcheckSettings {
  path: string;
  intervalSeconds: number;
  failuresBeforeDead: number;
}

/** The adapter's connection settings (`data.properties.properties`), as the platform answers them. */
export function settingsOf(record: AdapterRecord | undefined): Record<string, unknown> {
  const settings = record?.data.properties.properties;
  return isRecord(settings) ? settings : {};
}

/** The connection check of an adapter; what its settings leave out is the platform's default (GET /, or /restconf for NSO, every 30 s, DEAD after 3). */
export function healthcheckOf(record: AdapterRecord | undefined): HealthcheckSettings {
  const hc = settingsOf(record).healthcheck;
  const given = isRecord(hc) ? hc : {};
  return {
    path: typeof given.path === 'string' ? given.path : record?.data.properties.type === 'NSO' ? '/restconf' : '/',
    intervalSeconds: typeof given.intervalSeconds === 'number' ? given.intervalSeconds : 30,
    failuresBeforeDead: typeof given.failuresBeforeDead === 'number' ? given.failuresBeforeDead : 3,
  };
}

/** Where the adapter's system is (`https://acme.service-now.com:443/api/now`); undefined when its settings do not say. */
export function adapterEndpoint(record: AdapterRecord | undefined): string | undefined {
  const settings = settingsOf(record);
  if (record?.data.properties.type === 'NSO') {
    const http = isRecord(settings.http) ? settings.http : {};
    const ssl = isRecord(settings.ssl) ? settings.ssl : {};
    if (typeof http.host !== 'string') return undefined;
    const https = ssl.enabled === true;
    const port = typeof http.port === 'number' ? http.port : https ? 8888 : 8080;
    return `${https ? 'https' : 'http'}://${http.host}:${port}`;
  }
  return serverText(settings.server);
}

/** The URL the connection check asks: the health path from the server's root (not below its base path). */
export function adapterCheckUrl(record: AdapterRecord | undefined): string | undefined {
  const settings = settingsOf(record);
  const root =
    record?.data.properties.type === 'NSO'
      ? adapterEndpoint(record)
      : serverText(isRecord(settings.server) ? { ...settings.server, base_path: '' } : undefined);
  const path = healthcheckOf(record).path;
  return root === undefined ? undefined : `${root}${path.startsWith('/') ? '' : '/'}${path}`;
}

/** An HTTP server of adapter or integration settings as a URL (`protocol://host:port/base_path`). */
export function serverText(server: unknown): string | undefined {
  if (!isRecord(server) || typeof server.host !== 'string') return undefined;
  const protocol = typeof server.protocol === 'string' ? server.protocol : 'https';
  const host = server.host.includes(':') ? `[${server.host}]` : server.host;
  const port = typeof server.port === 'number' ? `:${server.port}` : '';
  const base = typeof server.base_path === 'string' && server.base_path !== '' ? `/${server.base_path.replace(/^\/+/, '')}` : '';
  return `${protocol}://${host}${port}${base}`;
}

/** The members of a value the platform answered masked (`********`), as dotted paths. */
export function maskedPaths(value: unknown, at = ''): string[] {
  if (value === SECRET_MASK) return [at];
  if (Array.isArray(value)) return value.flatMap((item, i) => maskedPaths(item, `${at}[${i}]`));
  if (!isRecord(value)) return [];
  return Object.entries(value).flatMap(([key, item]) => maskedPaths(item, at === '' ? key : `${at}.${key}`));
}

/** The log level an adapter's `loggerProps` records (console, else file, else syslog); undefined when none is set. */
export function logLevelOf(loggerProps: unknown): string | undefined {
  if (!isRecord(loggerProps)) return undefined;
  const syslog = isRecord(loggerProps.syslog) ? loggerProps.syslog.level : undefined;
  return [loggerProps.console_level, loggerProps.log_level, syslog].find((level): level is string => typeof level === 'string');
}

// ---------- integrations ----------

/** An integration as the page lists it: integrations have no lifecycle, and the platform checks no connection of theirs. */
export interface IntegrationRow {
  name: string;
  model: string | undefined;
  server: string | undefined;
  authentication: string | undefined;
  active: boolean;
}

export function integrationRows(records: readonly IntegrationRecord[]): IntegrationRow[] {
  return records
    .map((record) => {
      const data = record.data ?? {};
      const props: Record<string, unknown> = isRecord(data.properties) ? data.properties : {};
      const auth = isRecord(props.authentication) ? props.authentication.type : undefined;
      return {
        name: data.name ?? '',
        model: data.model,
        server: serverText(props.server),
        authentication: typeof auth === 'string' ? auth : undefined,
        active: record.metadata?.isActive !== false,
      };
    })
    .sort((a, b) => Number(a.active) - Number(b.active) || a.name.localeCompare(b.name));
}

// ---------- the bus and the store ----------

/** The bus or the store, as `/health/status` reports it. */
export interface InfraRow {
  /** `bus (nats)`, `store (embedded)`: what the platform calls it. */
  name: string;
  /** `Bus`, `Store`. */
  label: string;
  /** `nats`, `embedded`, `mongodb`. */
  kind: string | undefined;
  status: string;
  tone: Tone;
}

/** The bus and the store: anything but running is a problem (a store low on space too: it refuses writes once full). */
export function infraRows(status: HealthStatus | undefined): InfraRow[] {
  return (status?.services ?? []).map((s) => {
    const [, what = s.service, kind] = /^(\S+)(?: \((.*)\))?$/.exec(s.service) ?? [];
    return {
      name: s.service,
      label: what.charAt(0).toUpperCase() + what.slice(1),
      kind,
      status: s.status,
      tone: s.status === 'running' ? 'ok' : 'problem',
    };
  });
}

// ---------- the summary ----------

/** One component that is not healthy, as the summary names it. */
export interface Finding {
  tone: Tone;
  /** `adapter servicenow DEAD`, `application MOP STOPPED`, `store (embedded) low on space`. */
  text: string;
  /** The adapter's page, for an adapter. */
  adapter?: string;
}

/** Findings of one tone under their count: `2 problems`, `1 stopped by an operator`. */
export interface FindingGroup {
  tone: Tone;
  label: string;
  findings: Finding[];
}

/** What the summary counts and names. */
export interface Summary {
  tone: Tone;
  /** The whole line in words. */
  headline: string;
  /** The same, group by group, for the page to link each adapter to its page. */
  groups: FindingGroup[];
  /** Components healthy, and all components counted. */
  healthy: number;
  total: number;
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** How people name a service row in a sentence: `application MOP`, `applications A, B, C`. */
export function serviceText(row: Pick<ServiceRow, 'applications'>): string {
  return `${row.applications.length === 1 ? 'application' : 'applications'} ${row.applications.join(', ')}`;
}

/**
 * The line at the top of the page: `All 11 components healthy`, or the problems, then what
 * operators stopped, then what is changing, each named with its state. `unreadable` names what
 * could not be read at all (`adapters`): a problem too.
 */
export function summaryOf(
  services: readonly ServiceRow[],
  adapters: readonly AdapterRow[],
  infra: readonly InfraRow[],
  unreadable: readonly string[] = [],
): Summary {
  const findings: Finding[] = [
    ...unreadable.map((what): Finding => ({ tone: 'problem', text: `${what} unreadable` })),
    ...infra.filter((r) => r.tone !== 'ok').map((r): Finding => ({ tone: r.tone, text: `${r.name} ${r.status}` })),
    ...services
      .filter((r) => r.tone !== 'ok')
      .map((r): Finding => ({ tone: r.tone, text: `${serviceText(r)} ${r.tone === 'changing' ? 'being brought in line' : r.state}` })),
    ...adapters
      .filter((r) => r.tone !== 'ok')
      .map((r): Finding => ({
        tone: r.tone,
        text: `adapter ${r.name} ${r.state === 'RUNNING' && r.connection === 'OFFLINE' ? 'OFFLINE' : r.state}`,
        adapter: r.name,
      })),
  ];
  const total = services.length + adapters.length + infra.length;
  const of = (tone: Tone) => findings.filter((f) => f.tone === tone);
  const groups: FindingGroup[] = [
    { tone: 'problem' as const, label: plural(of('problem').length, 'problem'), findings: of('problem') },
    { tone: 'stopped' as const, label: `${of('stopped').length} stopped by an operator`, findings: of('stopped') },
    { tone: 'changing' as const, label: `${of('changing').length} changing`, findings: of('changing') },
  ].filter((group) => group.findings.length > 0);
  const healthy = total - findings.filter((f) => !f.text.endsWith(' unreadable')).length;
  const tone = groups[0]?.tone ?? 'ok';
  const said = groups.map((group) => `${group.label}: ${group.findings.map((f) => f.text).join(', ')}`);
  if (tone === 'changing') said.unshift(`${plural(healthy, 'component')} healthy`);
  const headline = groups.length === 0 ? `All ${plural(total, 'component')} healthy` : said.join('; ');
  return { tone, headline, groups, healthy, total };
}

// ---------- numbers ----------

const BYTES = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** `228 MiB`, `77.1 GiB`: bytes as people read them. */
export function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes)) return '—';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTES.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 100 || unit === 0 ? Math.round(value) : value.toFixed(1)} ${BYTES[unit]}`;
}
