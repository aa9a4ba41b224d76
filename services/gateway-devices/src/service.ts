import { mkdir } from 'node:fs/promises';
import { serve } from '@nap/bus';
import { RELEASE } from '@nap/contracts';
import { createSecretBox } from '@nap/runtime';
import type { RunningService, ServiceDeps, ServiceModule } from '@nap/runtime';
import { DeclaredIndexes } from '@nap/store';
import { DeviceAccess } from './clients/device-access';
import { createRunners } from './clients/runners';
import { liveSettings, loadGatewayDevicesConfig } from './config';
import type { GatewayDevicesConfig } from './config';
import type { GatewayDevicesContext } from './context';
import { registerDeviceMetrics } from './metrics';
import { createSessionLimiter } from './domain/session-limiter';
import type { SessionLimiter } from './domain/session-limiter';
import { gatewayDevicesHandlers } from './handlers';
import { GATEWAY_INDEXES, ensureCollections, gatewayCollections } from './store/collections';
import { InventoryRepository } from './store/inventory-repository';
import { sealNestedSecretsOnce } from './store/start-migrations';
import { createStoreKnownHosts } from './store/known-hosts-repository';
import { TemplateRepository } from './store/template-repository';

/** Options of {@link createGatewayDevicesService}; tests and tools may pass settings instead of `NAP_GW_*`. */
export interface GatewayDevicesServiceOptions {
  gateway?: GatewayDevicesConfig;
}

/**
 * The gateway-devices service: inventory, SSH, NETCONF, HTTP, runners, device templates. One
 * session limiter per process is shared by every request; trusted host keys live in the store.
 */
export function createGatewayDevicesService(
  deps: ServiceDeps,
  options: GatewayDevicesServiceOptions = {},
): ServiceModule & { limiter: SessionLimiter } {
  const { bus, store, logger, metrics, client, config } = deps;
  const gateway = options.gateway ?? loadGatewayDevicesConfig(config.dataDir);
  const collections = gatewayCollections(store);
  const inventory = new InventoryRepository(collections, createSecretBox(config.secretKey), {
    // during a rolling upgrade a replica of an older version may still write them in clear
    onSealedOnRead: (device, variables) => logger.info({ device, variables }, 'Secrets nested in device variables sealed on read'),
  });
  const knownHosts = createStoreKnownHosts(collections);
  const limiter = createSessionLimiter({
    perDeviceLimit: gateway.deviceSessionLimit,
    globalLimit: gateway.globalSessionLimit,
    queueTimeoutMs: gateway.sessionQueueTimeoutMs,
  });
  const access = new DeviceAccess(inventory, limiter, knownHosts, gateway, registerDeviceMetrics(metrics.registry, limiter));
  const runners = createRunners(gateway, inventory, knownHosts);
  const svc: GatewayDevicesContext = {
    inventory,
    templates: new TemplateRepository(collections),
    knownHosts,
    access,
    limiter,
    runners,
    config: gateway,
    logger,
  };

  return {
    limiter,
    async start(): Promise<RunningService> {
      await ensureCollections(store);
      // devices stored before secrets nested in their variables were sealed: sealed by the first start, which records it
      const sealing = await sealNestedSecretsOnce(collections, inventory);
      if (sealing.ran && sealing.sealed > 0) logger.info({ devices: sealing.sealed }, 'Secrets nested in device variables sealed');
      if (sealing.ran && !sealing.recorded)
        logger.warn(
          { devices: sealing.changedMeanwhile },
          'Devices changed while their nested secrets were being sealed were left as they are; the next start looks at the inventory again',
        );
      for (const device of await inventory.sessionLimits()) access.trackSessionLimit(device.name, device.variables);
      await runners.catalog.ensureDirectories();
      // the key directory holds private keys: only the platform's user may list it
      await mkdir(gateway.sshKeyDir, { recursive: true, mode: 0o700 });
      const registered = await serve({
        bus,
        service: 'gateway-devices',
        version: RELEASE,
        logger,
        metrics,
        client,
        idempotency: deps.idempotency,
        handlers: gatewayDevicesHandlers(svc),
        indexes: new DeclaredIndexes(store, GATEWAY_INDEXES),
        settings: liveSettings(gateway, limiter),
      });
      return { name: 'gateway-devices', stop: () => registered.stop() };
    },
  };
}
