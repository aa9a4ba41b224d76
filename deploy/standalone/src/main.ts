import { busCheck, loadConfig, onShutdown, startHealthServer, storeCheck } from '@nap/runtime';
import { createLogger, initTracing } from '@nap/telemetry';
import { engineOptionsFromEnv } from '@nap/workflow';
import { startPlatform } from './platform';

/** `npm start`: the whole platform in one process. */
async function run(): Promise<void> {
  const config = loadConfig();
  const workflow = engineOptionsFromEnv(process.env);
  const logger = createLogger({ name: 'nap', level: config.logLevel });
  const tracing = initTracing({ serviceName: 'nap-standalone' });
  const platform = await startPlatform({ config, logger, workflow });
  const checks = [
    busCheck(platform.bus),
    ...[...platform.stores].map(([name, store]) => storeCheck(store, `store:${name}`)),
    // an audited change is answered once its record is kept in the bus's journal
    ...(platform.busStore ? [storeCheck(platform.busStore, 'store:bus')] : []),
  ];
  const health =
    config.healthPort === undefined
      ? undefined
      : await startHealthServer({ host: config.host, port: config.healthPort, checks, registry: platform.metrics.registry });
  // Signals are handled before the line that tells anyone we listen: a signal sent on reading it
  // must find the handler, not the default that ends the process without a word.
  onShutdown(logger, async () => {
    await health?.close();
    await platform.stop();
    await tracing.shutdown();
  });
  logger.info(
    { url: platform.url, dataDir: config.dataDir, bus: platform.bus.kind, ...(health ? { health: health.url } : {}) },
    `NAP is listening on ${platform.url} (API docs at ${platform.url}/docs)`,
  );
}

run().catch((err: unknown) => {
  process.stderr.write(`NAP failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
