import type { Logger } from '@nap/telemetry';
import type { GatewayConfig } from '../config';
import type { DeviceAccess } from '../device-access';
import type { SessionLimiter } from '../domain/session-limiter';
import type { RunnerCatalog } from '../runners';
import type { InventoryRepository } from '../store/inventory-repository';
import type { TemplateRepository } from '../store/template-repository';

/** What the handlers of the gateway-devices service share. */
export interface GatewayContext {
  inventory: InventoryRepository;
  templates: TemplateRepository;
  access: DeviceAccess;
  limiter: SessionLimiter;
  runners: RunnerCatalog;
  config: GatewayConfig;
  knownHostFingerprint(hostPort: string): Promise<string | undefined>;
  logger: Logger;
}
