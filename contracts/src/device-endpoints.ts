/**
 * How a device is reached and its SSH host key trusted: the device gateway's rules, read by the
 * gateway itself and by the console (which shows the key trusted for a device). Pure: no imports,
 * so that a browser bundle may carry it.
 */

/** The ports a device is reached on when its variables name none. */
export const DEFAULT_DEVICE_PORTS = { ssh: 22, netconf: 830 } as const;

/**
 * How a presented host key is checked:
 * - `tofu` (default): trust on first use, then refuse a different key (`DEVICE_HOST_KEY_CHANGED`);
 * - `strict`: refuse any key not already trusted;
 * - `off`: accept any key and record nothing (inventory `host_key_checking: false`).
 */
export const HOST_KEY_CHECKING = { TOFU: 'tofu', STRICT: 'strict', OFF: 'off' } as const;
/** See {@link HOST_KEY_CHECKING}. */
export type HostKeyChecking = (typeof HOST_KEY_CHECKING)[keyof typeof HOST_KEY_CHECKING];

/**
 * The mode a `host_key_checking` value (or a request's override) names: absent, `null`, `true`,
 * `"tofu"` → trust on first use; `"strict"`; `false`, `"off"`, `"no"` → off. Undefined for a value
 * that names no mode (the gateway refuses it when a device is written).
 */
export function hostKeyCheckingMode(value: unknown): HostKeyChecking | undefined {
  if (value === undefined || value === null || value === true) return HOST_KEY_CHECKING.TOFU;
  if (value === false) return HOST_KEY_CHECKING.OFF;
  const text = String(value).trim().toLowerCase();
  if (text === 'strict') return HOST_KEY_CHECKING.STRICT;
  if (['off', 'false', 'no', '0'].includes(text)) return HOST_KEY_CHECKING.OFF;
  if (['tofu', 'true', 'yes', '1', 'accept-new'].includes(text)) return HOST_KEY_CHECKING.TOFU;
  return undefined;
}

/** The key under which a host key is trusted: `host:port`, brackets around an IPv6 address. */
export function knownHostsKey(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * The route of an endpoint's trusted key (`/gw/knownHosts/:hostPort`), as people type it: the
 * colon before the port kept, an IPv6 address's brackets and colons encoded.
 */
export function knownHostsRoute(hostPort: string): string {
  const port = hostPort.lastIndexOf(':');
  return `/gw/knownHosts/${encodeURIComponent(hostPort.slice(0, port))}${hostPort.slice(port)}`;
}

/**
 * An inventory device's SSH endpoint, as its host key is trusted and its sessions are counted:
 * `gw_host` (the device's name when it has none) and `gw_port` (22 when it has none).
 */
export function deviceSshEndpoint(name: string, variables: Readonly<Record<string, unknown>>): string {
  const host = typeof variables.gw_host === 'string' && variables.gw_host !== '' ? variables.gw_host : name;
  const port = typeof variables.gw_port === 'number' && Number.isInteger(variables.gw_port) ? variables.gw_port : DEFAULT_DEVICE_PORTS.ssh;
  return knownHostsKey(host, port);
}
