import { configureJsonLimits, serviceDatabase } from '@nap/contracts';
import type { ServiceName } from '@nap/contracts';
import { createNatsBus } from '@nap/bus';
import { createStore } from '@nap/store';
import { createLogger, createMetrics, initTracing } from '@nap/telemetry';
import { loadConfig } from './config';
import { busCheck, startHealthServer, storeCheck } from './health';
import { onShutdown } from './process';
import { createIdempotencyRecords } from './idempotency';
import { createClient, offerProcessMetrics } from './service';
import type { ServiceDeps, ServiceModule } from './service';

/**
 * The composition root of one service process in distributed mode: configuration, telemetry,
 * NATS, the service's own store, serve, signals. Each `services/<name>/src/main.ts` calls it.
 */
export async function runServiceProcess(name: ServiceName, create: (deps: ServiceDeps) => ServiceModule): Promise<void> {
  const config = loadConfig(process.env, { require: ['NAP_NATS_URL'] });
  const logger = createLogger({ name: `nap-${name}`, level: config.logLevel });
  configureJsonLimits({ maxJsonDepth: config.maxJsonDepth });
  const tracing = initTracing({ serviceName: `nap-${name}` });
  const metrics = createMetrics({ defaultLabels: { component: name } });
  if (!config.mongoUrl)
    logger.warn(
      { dataDir: config.dataDir },
      'NAP_MONGO_URL is not set: using the embedded store, which suits one replica per data directory',
    );
  const bus = await createNatsBus({ servers: config.natsUrl ?? '', name: `nap-${name}`, logger: logger.child({ component: 'bus' }) });
  const store = await createStore({
    ...(config.mongoUrl ? { mongoUrl: config.mongoUrl } : {}),
    dbName: serviceDatabase(name),
    dataDir: config.dataDir,
    minFreeBytes: config.dataMinFreeBytes,
  });
  const client = createClient(bus, metrics);
  const idempotency = createIdempotencyRecords(store);
  await idempotency.ready();
  const running = await create({ bus, store, logger, metrics, client, config, idempotency }).start();
  const metricsService = await offerProcessMetrics(bus, metrics, name);
  const health =
    config.healthPort === undefined
      ? undefined
      : await startHealthServer({
          host: config.host,
          port: config.healthPort,
          checks: [busCheck(bus), storeCheck(store)],
          registry: metrics.registry,
        });
  onShutdown(logger, async () => {
    await health?.close();
    await running.stop();
    idempotency.stop();
    await metricsService.stop();
    await bus.close();
    await store.close();
    await tracing.shutdown();
  });
  logger.info({ nats: config.natsUrl, store: store.kind, ...(health ? { health: health.url } : {}) }, `Service ${name} is serving`);
}
