import type { Caller } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import type { DeviceAccess } from './device-access';
import { DEFAULT_PORTS, optionalInt, optionalString } from './domain/connection-settings';
import { knownHostsKey } from './domain/known-hosts';
import type { DeviceDoc } from './store/collections';
import type { DeviceView, InventoryRepository, UpsertMode } from './store/inventory-repository';

/** A device's stored record (secrets masked) with its trusted host key and the names of its secrets. */
export type DeviceDetails = DeviceView & { hostKeyFingerprint: string | null; secretVariables: string[] };

/**
 * The inventory as the handlers change it: every write and delete keeps the session limiter's
 * per-device limit in step and is logged (names only, never variables).
 */
export class DeviceInventory {
  constructor(
    private readonly inventory: InventoryRepository,
    private readonly access: DeviceAccess,
    private readonly knownHostFingerprint: (hostPort: string) => Promise<string | undefined>,
    private readonly logger: Logger,
  ) {}

  /** Creates and/or updates a device (see {@link InventoryRepository.upsert}). */
  async write(
    name: string,
    input: { variables?: Record<string, unknown>; groups?: string[] },
    mode: UpsertMode,
    caller: Caller,
  ): Promise<{ doc: DeviceDoc; created: boolean }> {
    const result = await this.inventory.upsert(name, input, mode, caller.username);
    this.access.trackSessionLimit(result.doc.name, result.doc.variables);
    this.logger.info(
      { device: name, created: result.created, by: caller.username },
      result.created ? 'Inventory device created' : 'Inventory device updated',
    );
    return result;
  }

  /** Creates and/or updates a device and answers it as viewed (secrets masked). */
  async writeView(
    name: string,
    input: { variables?: Record<string, unknown>; groups?: string[] },
    mode: UpsertMode,
    caller: Caller,
  ): Promise<DeviceView> {
    return this.inventory.view((await this.write(name, input, mode, caller)).doc);
  }

  /** Deletes a device and its backups. Errors: `DEVICE_NOT_FOUND`. */
  async remove(name: string, caller: Caller): Promise<{ status: string; message: string }> {
    const doc = await this.inventory.get(name);
    await this.inventory.delete(name);
    this.access.trackSessionLimit(name, { ...doc.variables, gw_session_limit: undefined });
    this.logger.info({ device: name, by: caller.username }, 'Inventory device deleted');
    return { status: 'success', message: `Device "${name}" deleted` };
  }

  /** The stored record (secrets masked) with the trusted host key fingerprint of its SSH endpoint. */
  async details(doc: DeviceDoc): Promise<DeviceDetails> {
    const hostPort = knownHostsKey(
      optionalString(doc.variables.gw_host) ?? doc.name,
      optionalInt(doc.variables.gw_port) ?? DEFAULT_PORTS.ssh,
    );
    return {
      ...this.inventory.view(doc),
      hostKeyFingerprint: (await this.knownHostFingerprint(hostPort)) ?? null,
      secretVariables: Object.keys(doc.secrets ?? {}).sort(),
    };
  }
}
