import { ADAPTER_STATES, WORK_QUEUES } from '@nap/contracts';
import type { WorkQueueName } from '@nap/contracts';
import type { Bus, QueueBacklog } from '@nap/bus';
import { counterOnce, gaugeOnce } from '@nap/telemetry';
import type { DiskSpace } from '@nap/store';
import type { Registry } from '@nap/telemetry';
import { adapterView } from './domain/adapters';
import type { AdapterMonitor } from './engine/adapter-monitor';
import type { AdapterRepository } from './store/adapters';
import type { IntegrationRepository } from './store/integrations';
import type { SessionRepository } from './store/sessions';

/** What the admin gauges read at scrape time. */
export interface AdminMetricSources {
  sessions: SessionRepository;
  adapters: AdapterRepository;
  integrations: IntegrationRepository;
  /** The disk under the admin service's store, where the store reads it (embedded). */
  storeDisk: () => Promise<DiskSpace | undefined>;
  /** What the connection checks know of each adapter this replica runs. */
  adapterMonitor: Pick<AdapterMonitor, 'runtime'>;
  /** The bus, whose work queues the admin service consumes (the audit trail's). */
  bus: Pick<Bus, 'queueBacklog'>;
}

/**
 * The admin service's part of `/exporter_metrics`, read from its store at scrape time: sessions
 * (the original platform's `iap_active_sessions` and `iap_unique_sessions`, prefixed `nap_`),
 * adapters by state and integrations. Every admin replica reads the same store, so these aggregate
 * by `max`, not `sum`. A session counts while it would still be accepted: not revoked, not
 * expired, used within the idle limit (`sessionIdleMinutes`, read at each scrape).
 */
export function registerAdminMetrics(registry: Registry, sources: AdminMetricSources, sessionIdleMinutes: () => number | undefined): void {
  const { sessions, adapters, integrations } = sources;
  gaugeOnce(registry, {
    name: 'nap_active_sessions',
    help: 'Number of active sessions (not revoked, not expired, not idle beyond the limit)',
    aggregator: 'max',
    async collect() {
      this.set(await sessions.countActive(Date.now(), sessionIdleMinutes()));
    },
  });
  gaugeOnce(registry, {
    name: 'nap_unique_sessions',
    help: 'Number of accounts with at least one active session',
    aggregator: 'max',
    async collect() {
      this.set(await sessions.countActiveAccounts(Date.now(), sessionIdleMinutes()));
    },
  });
  gaugeOnce(registry, {
    name: 'nap_adapters',
    help: 'Adapters by lifecycle state as GET /health/adapters shows it (STARTING, RUNNING, STOPPING, DEAD from the connection checks; STOPPED)',
    labelNames: ['state'],
    aggregator: 'max',
    async collect() {
      // the state people see: the stored one says only whether the adapter should run
      const counts = new Map<string, number>(ADAPTER_STATES.filter((s) => s !== 'DELETED').map((state) => [state, 0]));
      for (const doc of await adapters.live()) {
        const state = adapterView(doc, sources.adapterMonitor.runtime(doc.name)).metadata.state;
        counts.set(state, (counts.get(state) ?? 0) + 1);
      }
      for (const [state, count] of counts) this.set({ state }, count);
    },
  });
  // the disk under an embedded store (none on MongoDB, whose server owns its disk): the lowest of the replicas counts
  const disk = (read: (space: DiskSpace) => number) =>
    async function collect(this: { reset(): void; set(labels: { store: string }, value: number): void }) {
      const space = await sources.storeDisk();
      this.reset();
      if (space !== undefined) this.set({ store: 'embedded' }, read(space));
    };
  gaugeOnce(registry, {
    name: 'nap_store_disk_free_bytes',
    help: 'Free space on the disk under the embedded store; writes are refused (STORE_FULL) under nap_store_disk_min_free_bytes',
    labelNames: ['store'],
    aggregator: 'min',
    collect: disk((space) => space.freeBytes),
  });
  gaugeOnce(registry, {
    name: 'nap_store_disk_min_free_bytes',
    help: 'Free space the embedded store keeps on its disk (NAP_DATA_MIN_FREE_MB)',
    labelNames: ['store'],
    aggregator: 'min',
    collect: disk((space) => space.minFreeBytes),
  });
  // the work queues (the audit trail's): every admin replica reads the same queue
  // both gauges of a scrape share one read (on NATS, one stream info request per queue)
  let reading: Promise<(readonly [WorkQueueName, QueueBacklog | undefined])[]> | undefined;
  const backlogs = () =>
    (reading ??= Promise.all(
      WORK_QUEUES.map(async (queue) => [queue, await sources.bus.queueBacklog(queue).catch(() => undefined)] as const),
    ).finally(() => {
      reading = undefined;
    }));
  gaugeOnce(registry, {
    name: 'nap_queue_oldest_entry_age_seconds',
    help: 'Age of the oldest entry of a work queue no consumer has handled yet (audit: records not yet in the chain); 0 when empty',
    labelNames: ['queue'],
    aggregator: 'max',
    async collect() {
      const now = Date.now();
      this.reset();
      for (const [queue, backlog] of await backlogs())
        if (backlog !== undefined) this.set({ queue }, backlog.oldestAt === undefined ? 0 : Math.max(0, (now - backlog.oldestAt) / 1000));
    },
  });
  gaugeOnce(registry, {
    name: 'nap_queue_fill_ratio',
    help: 'NATS: bytes a work queue stream holds over those it may hold; at 1 appends are refused (audited changes answer 503)',
    labelNames: ['queue'],
    aggregator: 'max',
    async collect() {
      this.reset();
      for (const [queue, backlog] of await backlogs()) if (backlog?.fill !== undefined) this.set({ queue }, backlog.fill);
    },
  });
  gaugeOnce(registry, {
    name: 'nap_integrations',
    help: 'Integrations configured (an integration has no lifecycle of its own: it is ready while its model exists)',
    aggregator: 'max',
    async collect() {
      this.set(await integrations.count());
    },
  });
}

/** How a login attempt came: `/login`, `/oauth/token`, Basic credentials, a browser sign-in (OIDC, SAML), `PUT /whoami/password`. */
export const LOGIN_VIAS = ['login', 'oauth', 'basic', 'sso', 'password-change'] as const;
export type LoginVia = (typeof LOGIN_VIAS)[number];
/**
 * How a login attempt ended: `ok`; `wrong` username or password (a browser sign-in the identity
 * provider or NAP refused); `inactive` account; `throttled` (429 `LOGIN_THROTTLED`, the password
 * never checked); `unavailable`, the directory that must decide did not answer (503).
 */
export const LOGIN_OUTCOMES = ['ok', 'wrong', 'inactive', 'throttled', 'unavailable'] as const;
export type LoginOutcome = (typeof LOGIN_OUTCOMES)[number];

/**
 * `nap_logins_total{via,outcome}`, counted by the admin replica that decided: what an on-call team
 * alerts on for password guessing (many `wrong` across accounts), locked accounts (`throttled`) and a
 * directory that stopped answering (`unavailable`). Basic credentials a gateway remembers are not
 * checked, nor counted, again. Answers the callback that counts one attempt.
 */
export function registerLoginMetrics(registry: Registry): (via: LoginVia, outcome: LoginOutcome) => void {
  const logins = counterOnce(registry, {
    name: 'nap_logins_total',
    help: 'Login attempts by how they came (login, oauth, basic, sso, password-change) and how they ended (ok, wrong, inactive, throttled, unavailable)',
    labelNames: ['via', 'outcome'],
  });
  // every series present from the start, so that an increase over the first failures is right
  for (const via of LOGIN_VIAS) for (const outcome of LOGIN_OUTCOMES) logins.inc({ via, outcome }, 0);
  return (via, outcome) => logins.inc({ via, outcome });
}
