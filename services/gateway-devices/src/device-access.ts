import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '@nap/contracts';
import type { GatewayConfig } from './config';
import { hostKeyCheckingOf, truthy } from './domain/device-variables';
import { knownHostsKey } from './domain/known-hosts';
import type { KnownHostsStore } from './domain/known-hosts';
import { withNetconfSession } from './domain/netconf-client';
import type { NetconfOptions, NetconfSession } from './domain/netconf-client';
import type { SessionLimiter } from './domain/session-limiter';
import { withSshSession } from './domain/ssh-session';
import type { SshSession, SshSessionOptions } from './domain/ssh-session';
import type { InventoryRepository, ResolvedDevice } from './store/inventory-repository';

/** What a request may give to reach a device, by netmiko's names; the inventory fills the rest. */
export interface ConnectionOverrides {
  device_type?: string;
  username?: string;
  password?: string;
  secret?: string;
  port?: number;
  /** Seconds. */
  conn_timeout?: number;
  host_key_checking?: boolean | string;
  [member: string]: unknown;
}

/** A device to reach: an inventory name or an address, plus overrides. */
export interface DeviceRequest {
  host: string;
  options?: ConnectionOverrides;
  /** The port in `options` is the schema default (22), not a choice of the caller. */
  portIsDefault?: boolean;
  /** Refuse addresses: only inventory devices. */
  inventoryOnly?: boolean;
}

/** Bounds of a session run. */
export interface SessionRunOptions {
  /** Epoch ms after which the caller no longer waits (the bus deadline). */
  deadline?: number;
}

/** A resolved SSH target. */
export interface SshPlan {
  session: SshSessionOptions;
  limiterKey: string;
  limit?: number;
  device?: ResolvedDevice;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function optionalInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

const KEY_MATERIAL = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;

/** The inventory device's limiter key: its SSH endpoint, so every path to the device shares its slots. */
export function deviceLimiterKey(name: string, variables: Record<string, unknown>): string {
  return knownHostsKey(optionalString(variables.gw_host) ?? name, optionalInt(variables.gw_port) ?? 22);
}

/**
 * Reaches devices for the handlers: resolves an inventory name or address to connection options
 * (inventory variables fill what the request leaves out), and runs sessions through the one
 * process-wide limiter and the store-backed known hosts.
 */
export class DeviceAccess {
  constructor(
    private readonly inventory: InventoryRepository,
    private readonly limiter: SessionLimiter,
    private readonly knownHosts: KnownHostsStore,
    private readonly config: GatewayConfig,
  ) {}

  /** Updates the limiter after a device was written or deleted. */
  trackSessionLimit(name: string, variables: Record<string, unknown> | undefined): void {
    if (variables === undefined) return;
    const limit = optionalInt(variables.gw_session_limit);
    this.limiter.setDeviceLimit(deviceLimiterKey(name, variables), limit);
  }

  private async device(request: DeviceRequest): Promise<ResolvedDevice | undefined> {
    const device = await this.inventory.resolve(request.host);
    if (device === undefined && request.inventoryOnly === true) {
      throw new AppError('DEVICE_NOT_FOUND', `No inventory device named "${request.host}"`, { details: { name: request.host } });
    }
    return device;
  }

  private async privateKey(device: ResolvedDevice | undefined): Promise<string | undefined> {
    const v = device?.variables ?? {};
    const material = optionalString(v.gw_ssh_private_key);
    if (material !== undefined) return material;
    const file = optionalString(v.gw_ssh_private_key_file);
    if (file === undefined) return undefined;
    if (KEY_MATERIAL.test(file)) return file;
    if (!path.isAbsolute(file)) {
      throw new AppError('DEVICE_CREDENTIALS_MISSING', `gw_ssh_private_key_file of device "${device?.name ?? ''}" must be an absolute path or the key itself`);
    }
    try {
      return await readFile(file, 'utf8');
    } catch (err) {
      throw new AppError('DEVICE_CREDENTIALS_MISSING', `The private key file ${file} of device "${device?.name ?? ''}" cannot be read`, { cause: err });
    }
  }

  /** Resolves an SSH target. Errors: `DEVICE_NOT_FOUND` (inventory only), `DEVICE_CREDENTIALS_MISSING`. */
  async planSsh(request: DeviceRequest): Promise<SshPlan> {
    const device = await this.device(request);
    const v = device?.variables ?? {};
    const o = request.options ?? {};
    const host = optionalString(v.gw_host) ?? request.host;
    const devicePort = optionalInt(v.gw_port);
    const port = o.port !== undefined && !(request.portIsDefault === true && devicePort !== undefined) ? o.port : (devicePort ?? o.port ?? 22);
    const username = optionalString(o.username) ?? optionalString(v.gw_user);
    const deviceType = optionalString(o.device_type) ?? optionalString(v.gw_network_os);
    const label = device === undefined ? `device ${knownHostsKey(host, port)}` : `device "${device.name}"`;
    if (username === undefined) {
      throw new AppError('DEVICE_CREDENTIALS_MISSING', `No username for ${label}: give connection_options.username or set gw_user on the inventory device`);
    }
    if (deviceType === undefined) {
      throw new AppError('DEVICE_CREDENTIALS_MISSING', `No device type for ${label}: give connection_options.device_type or set gw_network_os on the inventory device`);
    }
    const timeoutMs = typeof o.conn_timeout === 'number' && o.conn_timeout > 0 ? Math.round(o.conn_timeout * 1000) : this.config.connectTimeoutMs;
    const session: SshSessionOptions = {
      host,
      port,
      username,
      deviceType,
      hostKeyChecking: hostKeyCheckingOf(o.host_key_checking ?? v.host_key_checking),
      knownHosts: this.knownHosts,
      readyTimeoutMs: timeoutMs,
      promptTimeoutMs: timeoutMs,
    };
    if (device !== undefined) session.deviceName = device.name;
    const password = optionalString(o.password) ?? optionalString(v.gw_password);
    if (password !== undefined) session.password = password;
    const secret = optionalString(o.secret) ?? optionalString(v.gw_become_pass);
    if (secret !== undefined) session.secret = secret;
    if (v.gw_become !== undefined) session.become = truthy(v.gw_become);
    const key = await this.privateKey(device);
    if (key !== undefined) session.privateKey = key;
    const passphrase = optionalString(v.gw_ssh_passphrase);
    if (passphrase !== undefined) session.passphrase = passphrase;
    const plan: SshPlan = { session, limiterKey: device === undefined ? knownHostsKey(host, port) : deviceLimiterKey(device.name, v) };
    const limit = optionalInt(v.gw_session_limit);
    if (limit !== undefined) plan.limit = limit;
    if (device !== undefined) plan.device = device;
    return plan;
  }

  private queueTimeoutMs(run: SessionRunOptions): number {
    const untilDeadline = run.deadline === undefined ? Infinity : run.deadline - Date.now() - 250;
    return Math.max(1, Math.min(this.config.sessionQueueTimeoutMs, untilDeadline));
  }

  /**
   * Runs `fn` in an SSH session with the device, holding a limiter slot for its whole life. Requests
   * to one device are served, and answered, in arrival order.
   */
  async withCli<T>(request: DeviceRequest, fn: (session: SshSession, plan: SshPlan) => Promise<T>, run: SessionRunOptions = {}): Promise<T> {
    const plan = await this.planSsh(request);
    return this.runPlanned(plan, fn, run);
  }

  /** {@link withCli} for an already resolved plan. */
  runPlanned<T>(plan: SshPlan, fn: (session: SshSession, plan: SshPlan) => Promise<T>, run: SessionRunOptions = {}): Promise<T> {
    const options = { ordered: true, queueTimeoutMs: this.queueTimeoutMs(run), ...(plan.limit === undefined ? {} : { limit: plan.limit }) };
    return this.limiter.run(plan.limiterKey, () => withSshSession(plan.session, (s) => fn(s, plan)), options);
  }

  /** Runs `fn` in a NETCONF session with the device (port gw_netconf_port, default 830). */
  async withNetconf<T>(
    request: DeviceRequest & { options?: ConnectionOverrides & { hostkey_verify?: boolean | string; timeout?: number } },
    fn: (session: NetconfSession, target: { host: string; port: number }) => Promise<T>,
    run: SessionRunOptions = {},
  ): Promise<T> {
    const device = await this.device(request);
    const v = device?.variables ?? {};
    const o = request.options ?? {};
    const host = optionalString(v.gw_host) ?? request.host;
    const port = o.port ?? optionalInt(v.gw_netconf_port) ?? 830;
    const username = optionalString(o.username) ?? optionalString(v.gw_user);
    const label = device === undefined ? `device ${knownHostsKey(host, port)}` : `device "${device.name}"`;
    if (username === undefined) {
      throw new AppError('DEVICE_CREDENTIALS_MISSING', `No username for ${label}: give connection_options.username or set gw_user on the inventory device`);
    }
    const timeoutMs = this.config.connectTimeoutMs;
    const options: NetconfOptions = {
      host,
      port,
      username,
      hostKeyChecking: hostKeyCheckingOf(o.hostkey_verify ?? o.host_key_checking ?? v.host_key_checking),
      knownHosts: this.knownHosts,
      readyTimeoutMs: timeoutMs,
      helloTimeoutMs: timeoutMs,
    };
    if (typeof o.timeout === 'number' && o.timeout > 0) options.rpcTimeoutMs = Math.round(o.timeout * 1000);
    if (device !== undefined) options.deviceName = device.name;
    const password = optionalString(o.password) ?? optionalString(v.gw_password);
    if (password !== undefined) options.password = password;
    const key = await this.privateKey(device);
    if (key !== undefined) options.privateKey = key;
    const limiterKey = device === undefined ? knownHostsKey(host, port) : deviceLimiterKey(device.name, v);
    const limit = optionalInt(v.gw_session_limit);
    return this.limiter.run(limiterKey, () => withNetconfSession(options, (s) => fn(s, { host, port })), {
      ordered: true,
      queueTimeoutMs: this.queueTimeoutMs(run),
      ...(limit === undefined ? {} : { limit }),
    });
  }
}
