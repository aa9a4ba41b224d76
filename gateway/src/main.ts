import { SERVICE_NAMES, configureJsonLimits } from '@nap/contracts';
import { createNatsBus } from '@nap/bus';
import { createClient, loadConfig, offerProcessMetrics, onShutdown } from '@nap/runtime';
import { createLogger, createMetrics, initTracing } from '@nap/telemetry';
import { createGateway } from './app';
import { listen } from './server';

/** The gateway process in distributed mode. */
async function run(): Promise<void> {
  const config = loadConfig(process.env, { require: ['NAP_NATS_URL'] });
  const logger = createLogger({ name: 'nap-gateway', level: config.logLevel });
  configureJsonLimits({ maxJsonDepth: config.maxJsonDepth });
  const tracing = initTracing({ serviceName: 'nap-gateway' });
  const metrics = createMetrics({ defaultLabels: { component: 'gateway' } });
  const bus = await createNatsBus({ servers: config.natsUrl ?? '', name: 'nap-gateway', logger: logger.child({ component: 'bus' }) });
  const client = createClient(bus, metrics);
  const gateway = createGateway({ bus, client, logger, metrics, bodyLimit: config.bodyLimitBytes, maxJsonDepth: config.maxJsonDepth, maxParamLength: config.maxParamLength, requiredServices: SERVICE_NAMES, cookieMaxAgeSeconds: config.tokenTtlSeconds });
  await gateway.start();
  const metricsService = await offerProcessMetrics(bus, metrics, 'gateway');
  const server = await listen(gateway.handler, config.host, config.port, { headersTimeoutMs: config.headersTimeoutMs, requestTimeoutMs: config.requestTimeoutMs });
  logger.info({ url: server.url, nats: config.natsUrl }, 'Gateway listening');
  onShutdown(logger, async () => {
    await server.close();
    await gateway.stop();
    await metricsService.stop();
    await bus.close();
    await tracing.shutdown();
  });
}

run().catch((err: unknown) => {
  process.stderr.write(`nap-gateway failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
