import { AppError, DEFAULT_DEVICE_PORTS, deviceSshEndpoint, knownHostsKey } from '@nap/contracts';
import type { HostKeyChecking } from '@nap/contracts';
import { hostKeyCheckingOf, truthy } from './device-variables';

/** The protocols the gateway opens sessions with. */
export type SessionProtocol = 'ssh' | 'netconf';

/** Default ports: SSH 22, NETCONF over SSH 830. */
export const DEFAULT_PORTS: Readonly<Record<SessionProtocol, number>> = DEFAULT_DEVICE_PORTS;

/**
 * What a request may give to reach a device, by netmiko's names (and ncclient's, for NETCONF:
 * `hostkey_verify`, `timeout`); the inventory fills the rest.
 */
export interface ConnectionOverrides {
  device_type?: string;
  username?: string;
  password?: string;
  secret?: string;
  port?: number;
  /** Seconds to log in (SSH). */
  conn_timeout?: number;
  host_key_checking?: boolean | string;
  /** NETCONF name of `host_key_checking`; wins over it. */
  hostkey_verify?: boolean | string;
  /** Seconds per NETCONF RPC. */
  timeout?: number;
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

/** An inventory device as a connection needs it: its name and its variables with secrets opened. */
export interface DeviceVariablesOf {
  name: string;
  variables: Record<string, unknown>;
}

/**
 * How to reach one device, resolved once from the request and the inventory device: the request's
 * overrides win, the inventory fills the rest, the defaults last. Secrets (`password`, `secret`,
 * `passphrase`) are never logged or put in a message.
 */
export interface ConnectionSettings {
  /** Inventory name, when the request named an inventory device. */
  deviceName?: string;
  host: string;
  port: number;
  username: string;
  /** `device "core-1"` or `device 10.0.0.1:22`, for messages. */
  label: string;
  password?: string;
  /** Passphrase of the private key (`gw_ssh_passphrase`). */
  passphrase?: string;
  hostKeyChecking: HostKeyChecking;
  /** Login bound. */
  connectTimeoutMs: number;
  /** Limiter key: the inventory device's SSH endpoint, so every path to it shares its slots; else `host:port`. */
  limiterKey: string;
  /** The device's own session limit (`gw_session_limit`). */
  sessionLimit?: number;
}

/** Settings of an SSH (CLI) session. */
export interface SshSettings extends ConnectionSettings {
  /** netmiko device type. */
  deviceType: string;
  /** Enable secret. */
  secret?: string;
  /** Enter privileged mode after login (`gw_become`). */
  become?: boolean;
}

/** Settings of a NETCONF session. */
export interface NetconfSettings extends ConnectionSettings {
  /** Bound of each RPC (the request's `timeout`). */
  rpcTimeoutMs?: number;
}

/** A non-empty string, or `undefined`. */
export function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** An integer, or `undefined`. */
export function optionalInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

/** The inventory device's limiter key: its SSH endpoint, so every path to the device shares its slots. */
export function deviceLimiterKey(name: string, variables: Record<string, unknown>): string {
  return deviceSshEndpoint(name, variables);
}

function portOf(protocol: SessionProtocol, request: DeviceRequest, v: Record<string, unknown>): number {
  const asked = request.options?.port;
  if (protocol === 'netconf') return asked ?? optionalInt(v.gw_netconf_port) ?? DEFAULT_PORTS.netconf;
  const devicePort = optionalInt(v.gw_port);
  // `POST /gw/ssh/send_command` fills port 22 by validation: then the device's own port wins over that default.
  if (asked !== undefined && !(request.portIsDefault === true && devicePort !== undefined)) return asked;
  return devicePort ?? asked ?? DEFAULT_PORTS.ssh;
}

/** What both protocols resolve alike: address, port, login, host key checking, limiter slot. */
function resolveCommon(
  protocol: SessionProtocol,
  request: DeviceRequest,
  device: DeviceVariablesOf | undefined,
  defaults: { connectTimeoutMs: number },
): ConnectionSettings {
  const v = device?.variables ?? {};
  const o = request.options ?? {};
  const host = optionalString(v.gw_host) ?? request.host;
  const port = portOf(protocol, request, v);
  const label = device === undefined ? `device ${knownHostsKey(host, port)}` : `device "${device.name}"`;
  const username = optionalString(o.username) ?? optionalString(v.gw_user);
  if (username === undefined) {
    throw new AppError(
      'DEVICE_CREDENTIALS_MISSING',
      device === undefined
        ? // most often a device name mistyped: say that it is no inventory device before what an address would need
          `No inventory device is named "${request.host}", and as an address (${label}) it needs a login: check the name (POST /gw/getInventoryDevices lists them) or give connection_options.username`
        : `No username for ${label}: give connection_options.username or set gw_user on the inventory device`,
    );
  }
  const settings: ConnectionSettings = {
    host,
    port,
    username,
    label,
    hostKeyChecking: hostKeyCheckingOf(
      (protocol === 'netconf' ? o.hostkey_verify : undefined) ?? o.host_key_checking ?? v.host_key_checking,
    ),
    connectTimeoutMs: defaults.connectTimeoutMs,
    limiterKey: device === undefined ? knownHostsKey(host, port) : deviceLimiterKey(device.name, v),
  };
  if (device !== undefined) settings.deviceName = device.name;
  const password = optionalString(o.password) ?? optionalString(v.gw_password);
  if (password !== undefined) settings.password = password;
  const passphrase = optionalString(v.gw_ssh_passphrase);
  if (passphrase !== undefined) settings.passphrase = passphrase;
  const limit = optionalInt(v.gw_session_limit);
  if (limit !== undefined) settings.sessionLimit = limit;
  return settings;
}

/**
 * Resolves the SSH settings of the device `request` names. `device` is the inventory device of that
 * name (secrets opened), `undefined` for an address. Errors: `DEVICE_CREDENTIALS_MISSING` (no
 * username or device type), `VALIDATION_FAILED` (host key checking).
 */
export function resolveSshSettings(
  request: DeviceRequest,
  device: DeviceVariablesOf | undefined,
  defaults: { connectTimeoutMs: number },
): SshSettings {
  const v = device?.variables ?? {};
  const o = request.options ?? {};
  const common = resolveCommon('ssh', request, device, defaults);
  const deviceType = optionalString(o.device_type) ?? optionalString(v.gw_network_os);
  if (deviceType === undefined) {
    throw new AppError(
      'DEVICE_CREDENTIALS_MISSING',
      `No device type for ${common.label}: give connection_options.device_type or set gw_network_os on the inventory device`,
    );
  }
  const settings: SshSettings = { ...common, deviceType };
  if (typeof o.conn_timeout === 'number' && o.conn_timeout > 0) settings.connectTimeoutMs = Math.round(o.conn_timeout * 1000);
  const secret = optionalString(o.secret) ?? optionalString(v.gw_become_pass);
  if (secret !== undefined) settings.secret = secret;
  if (v.gw_become !== undefined) settings.become = truthy(v.gw_become);
  return settings;
}

/** Resolves the NETCONF settings of the device `request` names (port `gw_netconf_port`, default 830); errors as {@link resolveSshSettings}. */
export function resolveNetconfSettings(
  request: DeviceRequest,
  device: DeviceVariablesOf | undefined,
  defaults: { connectTimeoutMs: number },
): NetconfSettings {
  const settings: NetconfSettings = resolveCommon('netconf', request, device, defaults);
  const timeout = request.options?.timeout;
  if (typeof timeout === 'number' && timeout > 0) settings.rpcTimeoutMs = Math.round(timeout * 1000);
  return settings;
}
