import { SERVICE_NAMES, configureJsonLimits, serviceDatabase } from '@nap/contracts';
import type { ServiceName } from '@nap/contracts';
import { createMemoryBus, createNatsBus } from '@nap/bus';
import type { Bus } from '@nap/bus';
import { createGateway, listen } from '@nap/gateway';
import type { Gateway } from '@nap/gateway';
import { createStore } from '@nap/store';
import type { Store, StoreConfig } from '@nap/store';
import { createClient, createIdempotencyRecords, offerProcessMetrics } from '@nap/runtime';
import type { RunningService, RuntimeConfig, ServiceDeps, ServiceModule } from '@nap/runtime';
import { createLogger, createMetrics } from '@nap/telemetry';
import type { Logger, PlatformMetrics } from '@nap/telemetry';
import { createAdminService } from '@nap/admin';
import type { AdminServiceOptions } from '@nap/admin';
import { createGatewayDevicesService } from '@nap/gateway-devices';
import { createMopService } from '@nap/mop';
import { createOrchProxyService } from '@nap/orch-proxy';
import { createStudioService } from '@nap/studio';
import { createWorkflowService, persistentEngineId } from '@nap/workflow';
import type { WorkflowServiceOptions } from '@nap/workflow';
import { createStoreEventSequences } from './event-sequences';
import { createStoreQueueJournal } from './queue-journal';

export interface PlatformOptions {
  config: RuntimeConfig;
  logger?: Logger;
  /** An existing bus (tests); otherwise NATS when `config.natsUrl` is set, else the in-process bus. */
  bus?: Bus;
  admin?: AdminServiceOptions;
  /**
   * Settings of the workflow engine (lease, renewal, scan, id). Without an id the engine takes the
   * one kept in `<dataDir>/workflow-engine.id`, so a restarted process resumes its jobs at once.
   */
  workflow?: WorkflowServiceOptions;
  /** Which services to run in this process; all six by default. */
  services?: readonly ServiceName[];
  /** Settings of the gateway beside the configuration's (tests: how long Basic credentials are remembered). */
  gateway?: { basicCredentialsTtlMs?: number; maxStreamsPerCaller?: number };
}

export interface Platform {
  url: string;
  port: number;
  bus: Bus;
  gateway: Gateway;
  metrics: PlatformMetrics;
  stores: Map<ServiceName, Store>;
  /** The store of the in-process bus's work queue journal (`nap_bus`); absent over NATS or with a bus given. */
  busStore?: Store;
  stop(): Promise<void>;
}

const FACTORIES: Record<ServiceName, (deps: ServiceDeps, options: PlatformOptions) => ServiceModule> = {
  // the audit trail's chain is written and read in a thread of its own, on the admin store
  admin: (deps, options) =>
    createAdminService(deps, {
      auditThread: { store: storeConfig(deps.config, serviceDatabase('admin')) },
      ...options.admin,
    }),
  workflow: (deps, options) => createWorkflowService(deps, { serverId: persistentEngineId(deps.config.dataDir), ...options.workflow }),
  mop: (deps) => createMopService(deps),
  'gateway-devices': (deps) => createGatewayDevicesService(deps),
  'orch-proxy': (deps) => createOrchProxyService(deps),
  studio: (deps) => createStudioService(deps),
};

/** Where the database `dbName` lives: on MongoDB when `config.mongoUrl` is set, else embedded under `config.dataDir`. */
function storeConfig(config: RuntimeConfig, dbName: string): StoreConfig {
  return {
    ...(config.mongoUrl ? { mongoUrl: config.mongoUrl } : {}),
    dbName,
    dataDir: config.dataDir,
    minFreeBytes: config.dataMinFreeBytes,
  };
}

/**
 * The services in the order they start: the workflow engine last, since it resumes the jobs it
 * holds at once and their tasks call the other services.
 */
function startOrder(names: readonly ServiceName[]): ServiceName[] {
  return [...names.filter((n) => n !== 'workflow'), ...names.filter((n) => n === 'workflow')];
}

/**
 * Every service and the gateway in one process: what `npm start` runs, and what tests start.
 * Stores are embedded under `config.dataDir` unless `config.mongoUrl` is set.
 */
export async function startPlatform(options: PlatformOptions): Promise<Platform> {
  const { config } = options;
  const logger = options.logger ?? createLogger({ name: 'nap', level: config.logLevel });
  configureJsonLimits({ maxJsonDepth: config.maxJsonDepth });
  const metrics = createMetrics({ defaultLabels: { component: 'standalone' } });
  const storeOf = (dbName: string) => createStore(storeConfig(config, dbName));
  // The in-process bus keeps its work queues' entries (the audit trail's) in a store of its own: an
  // append is durable once kept there, as JetStream's acknowledgement makes it over NATS, and the
  // consumer (the admin service's audit appender) chains it after, without holding up the answer.
  // The same store keeps the event stream's reserved sequences, so that event ids keep rising
  // across restarts (a console resuming with an old id gets what the new process published).
  const journalStore = options.bus === undefined && !config.natsUrl ? await storeOf('nap_bus') : undefined;
  let bus: Bus;
  try {
    bus =
      options.bus ??
      (config.natsUrl
        ? await createNatsBus({ servers: config.natsUrl, name: 'nap-standalone', logger: logger.child({ component: 'bus' }) })
        : // the in-process stream lives in this process's memory: bounded by bytes, not only by age
          createMemoryBus({
            stream: { maxBytes: config.memoryEventsMaxBytes },
            ...(journalStore
              ? { queueJournal: await createStoreQueueJournal(journalStore), eventSequences: await createStoreEventSequences(journalStore) }
              : {}),
            logger: logger.child({ component: 'bus' }),
          }));
  } catch (err) {
    await journalStore?.close().catch(() => undefined);
    throw err;
  }
  const client = createClient(bus, metrics);
  const stores = new Map<ServiceName, Store>();
  const running: RunningService[] = [];
  const keyRecords: { stop(): void }[] = [];
  try {
    for (const name of startOrder(options.services ?? SERVICE_NAMES)) {
      const store = await storeOf(serviceDatabase(name));
      stores.set(name, store);
      const idempotency = createIdempotencyRecords(store);
      await idempotency.ready();
      keyRecords.push(idempotency);
      const deps: ServiceDeps = { bus, store, logger: logger.child({ service: name }), metrics, client, config, idempotency };
      running.push(await FACTORIES[name](deps, options).start());
    }
    const metricsService = await offerProcessMetrics(bus, metrics, 'standalone');
    const gateway = createGateway({
      bus,
      client,
      logger: logger.child({ component: 'gateway' }),
      metrics,
      bodyLimit: config.bodyLimitBytes,
      documentBodyLimit: config.documentBodyLimitBytes,
      maxJsonDepth: config.maxJsonDepth,
      maxParamLength: config.maxParamLength,
      requiredServices: options.services ?? SERVICE_NAMES,
      cookieMaxAgeSeconds: config.tokenTtlSeconds,
      publicUrl: config.publicUrl,
      allowedOrigins: config.allowedOrigins,
      trustProxy: config.trustProxy,
      consoleDir: config.consoleDir,
      ...(config.auditTrail ? {} : { audit: false as const }),
      ...(options.gateway?.basicCredentialsTtlMs !== undefined ? { basicCredentialsTtlMs: options.gateway.basicCredentialsTtlMs } : {}),
      eventStreams: { maxStreamsPerCaller: options.gateway?.maxStreamsPerCaller ?? config.streamsPerCaller },
    });
    await gateway.start();
    const server = await listen(gateway.handler, config.host, config.port, {
      headersTimeoutMs: config.headersTimeoutMs,
      requestTimeoutMs: config.requestTimeoutMs,
      ...(config.tls ? { tls: config.tls, log: logger.child({ component: 'gateway' }), registry: metrics.registry } : {}),
    });
    return {
      url: server.url,
      port: server.port,
      bus,
      gateway,
      metrics,
      stores,
      ...(journalStore ? { busStore: journalStore } : {}),
      async stop() {
        await server.close();
        await gateway.stop();
        for (const service of running.reverse()) await service.stop();
        for (const records of keyRecords) records.stop();
        await metricsService.stop();
        await bus.close();
        for (const store of stores.values()) await store.close();
        await journalStore?.close();
      },
    };
  } catch (err) {
    for (const service of running.reverse()) await service.stop().catch(() => undefined);
    for (const records of keyRecords) records.stop();
    for (const store of stores.values()) await store.close().catch(() => undefined);
    if (!options.bus) await bus.close().catch(() => undefined);
    await journalStore?.close().catch(() => undefined);
    throw err;
  }
}
