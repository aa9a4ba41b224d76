import { SERVICE_NAMES, configureJsonLimits } from '@nap/contracts';
import { createNatsBus } from '@nap/bus';
import { busCheck, createClient, loadConfig, offerProcessMetrics, onShutdown, startHealthServer } from '@nap/runtime';
import { createLogger, createMetrics, initTracing } from '@nap/telemetry';
import { errorMessage } from '@nap/util';
import { createGateway } from './app';
import { listen } from './server';

/** The gateway process in distributed mode. */
async function run(): Promise<void> {
  const config = loadConfig(process.env, { require: ['NAP_NATS_URL'] });
  const logger = createLogger({ name: 'nap-gateway', level: config.logLevel });
  configureJsonLimits({ maxJsonDepth: config.maxJsonDepth });
  // the gateway's request path hands the trace context on itself (operation.ts): no AsyncLocalStorage
  // (initTracing's default), whose hooks on every promise cost Node 20 about a tenth of the gateway's CPU per request
  const tracing = initTracing({ serviceName: 'nap-gateway' });
  const metrics = createMetrics({ defaultLabels: { component: 'gateway' } });
  const bus = await createNatsBus({ servers: config.natsUrl ?? '', name: 'nap-gateway', logger: logger.child({ component: 'bus' }) });
  const client = createClient(bus, metrics);
  const gateway = createGateway({
    bus,
    client,
    logger,
    metrics,
    bodyLimit: config.bodyLimitBytes,
    documentBodyLimit: config.documentBodyLimitBytes,
    maxJsonDepth: config.maxJsonDepth,
    maxParamLength: config.maxParamLength,
    requiredServices: SERVICE_NAMES,
    cookieMaxAgeSeconds: config.tokenTtlSeconds,
    publicUrl: config.publicUrl,
    allowedOrigins: config.allowedOrigins,
    trustProxy: config.trustProxy,
    consoleDir: config.consoleDir,
    eventStreams: { maxStreamsPerCaller: config.streamsPerCaller },
    ...(config.auditTrail ? {} : { audit: false as const }),
  });
  await gateway.start();
  const metricsService = await offerProcessMetrics(bus, metrics, 'gateway');
  const server = await listen(gateway.handler, config.host, config.port, {
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    ...(config.tls ? { tls: config.tls, log: logger, registry: metrics.registry } : {}),
  });
  // the management listener's readiness is the gateway's own (its bus); /health/ready on the main
  // port also waits for every service, which suits people, not a load balancer's probe
  const health =
    config.healthPort === undefined
      ? undefined
      : await startHealthServer({ host: config.host, port: config.healthPort, checks: [busCheck(bus)], registry: metrics.registry });
  onShutdown(logger, async () => {
    await health?.close();
    await server.close();
    await gateway.stop();
    await metricsService.stop();
    await bus.close();
    await tracing.shutdown();
  });
  logger.info({ url: server.url, nats: config.natsUrl, ...(health ? { health: health.url } : {}) }, 'Gateway listening');
}

run().catch((err: unknown) => {
  process.stderr.write(`nap-gateway failed to start: ${errorMessage(err)}\n`);
  process.exit(1);
});
