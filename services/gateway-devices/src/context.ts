import type { Logger } from '@nap/telemetry';
import type { GatewayConfig } from './config';
import type { DeviceAccess } from './device-access';
import type { DeviceInventory } from './device-inventory';
import type { SessionLimiter } from './domain/session-limiter';
import type { Runners } from './runners';
import type { InventoryRepository } from './store/inventory-repository';
import type { TemplateRepository } from './store/template-repository';

/** What the handlers of the gateway-devices service share. */
export interface GatewayDevicesContext {
  /** The inventory store: devices, groups, backups. */
  inventory: InventoryRepository;
  /** Inventory writes that keep the session limiter in step, and device details. */
  devices: DeviceInventory;
  templates: TemplateRepository;
  /** SSH and NETCONF sessions with devices. */
  access: DeviceAccess;
  limiter: SessionLimiter;
  runners: Runners;
  config: GatewayConfig;
  logger: Logger;
}
