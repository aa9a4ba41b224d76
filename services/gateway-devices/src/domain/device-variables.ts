import { AppError, SECRET_MASK, hostKeyCheckingMode, isSecret, isSecretKey, redactSecrets } from '@nap/contracts';
import type { HostKeyChecking } from '@nap/contracts';
import { isRecord } from '@nap/util';
import { headerProblems } from './http-headers';

const INTEGER_VARIABLES: Readonly<Record<string, { min: number; max: number }>> = {
  gw_port: { min: 1, max: 65535 },
  gw_netconf_port: { min: 1, max: 65535 },
  gw_session_limit: { min: 1, max: 1000 },
};

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * Checks and normalises gateway variables: names are identifiers, ports and the session limit are
 * whole numbers in range (numeric strings accepted), `gw_http_base_url` is an http(s) URL,
 * `gw_http_headers` is an object of headers that can be sent, `__proto__` is reserved. `null` values
 * are kept (they mean "remove" in an update). Throws `VALIDATION_FAILED` listing every problem, each naming its member
 * (`body.variables.<name>`).
 */
export function normalizeVariables(variables: Record<string, unknown>): Record<string, unknown> {
  const problems: { member: string; message: string }[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(variables)) {
    const member = `body.variables.${key}`;
    const problem = (message: string): void => {
      problems.push({ member, message });
    };
    if (!VARIABLE_NAME.test(key) || key.startsWith('$')) {
      problem(`variable name "${key}" is not an identifier`);
      continue;
    }
    if (key === '__proto__') {
      // the store's member paths (variables.<name>) cannot address it: refused rather than dropped unseen
      problem('variable name "__proto__" is reserved: choose another name');
      continue;
    }
    let value = raw;
    // own members only: a variable named toString or constructor is no integer variable
    const range = Object.hasOwn(INTEGER_VARIABLES, key) ? INTEGER_VARIABLES[key] : undefined;
    if (range !== undefined && value !== null) {
      // a string of decimal digits only: Number() would also read "0x16", "1e3" and "0b10"
      const n = typeof value === 'string' ? (/^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN) : value;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < range.min || n > range.max) {
        problem(`${key} must be a whole number from ${range.min} to ${range.max}`);
        continue;
      }
      value = n;
    }
    if (key === 'gw_http_base_url' && value !== null) {
      if (typeof value !== 'string' || !/^https?:\/\/[^\s/]+/i.test(value)) {
        problem('gw_http_base_url must be an http:// or https:// URL');
        continue;
      }
      if (hasUrlCredentials(value)) {
        // never echoed back: the message names where the credentials belong instead
        problem(
          'gw_http_base_url must not hold credentials (user:password@); put the user in gw_http_username and the password in gw_http_password, which are stored sealed and never returned',
        );
        continue;
      }
    }
    if (key === 'gw_http_headers' && value !== null) {
      // refused when written: stored, they would fail every later request to the device
      const found = headerProblems(value, member);
      if (found.length > 0) {
        problems.push(...found);
        continue;
      }
    }
    if (key === 'host_key_checking' && value !== null && hostKeyCheckingMode(value) === undefined) {
      // refused when written: stored, it would fail every later session to the device
      problem(notAHostKeyCheckingMode(value));
      continue;
    }
    if (isSecret(key, value) && value !== null && typeof value !== 'string') {
      problem(`${key} must be a string`);
      continue;
    }
    ownMember(out, key, value);
  }
  if (problems.length > 0) {
    throw new AppError('VALIDATION_FAILED', `Invalid device variables: ${problems.map((p) => p.message).join('; ')}`, {
      details: problems,
    });
  }
  return out;
}

/**
 * Sets `out[key]` as an own member whatever `key` is: an assignment to `__proto__` would replace the
 * object's prototype instead (and the variable would be dropped unseen).
 */
function ownMember(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Ansible connections that act on the platform's own host rather than reach a device: `local` and
 * the plugins that enter a container, jail or chroot of that host (`ansible.builtin.local`,
 * `community.docker.docker`, …; named by their last segment, case aside).
 */
const HOST_LOCAL_CONNECTIONS: ReadonlySet<string> = new Set([
  'local',
  'chroot',
  'jail',
  'zone',
  'lxc',
  'lxd',
  'incus',
  'docker',
  'docker_api',
  'nsenter',
  'podman',
  'buildah',
  'libvirt_lxc',
  'libvirt_qemu',
  'iocage',
  'qubes',
  'funcd',
  'saltstack',
]);

/** The variables that choose a device's Ansible connection. */
export const CONNECTION_VARIABLES = ['gw_connection', 'ansible_connection'] as const;

/** True when `value` asks Ansible for a connection on the platform's own host ({@link HOST_LOCAL_CONNECTIONS}). */
export function isHostLocalConnection(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const plugin = value.trim().toLowerCase().split('.').pop() ?? '';
  return HOST_LOCAL_CONNECTIONS.has(plugin);
}

/** The spec's createDevice mapping of deviceVars to gateway variables, exactly. */
export const DEVICE_VARS_MAPPING: Readonly<Record<string, string>> = {
  'device-type': 'gw_connection',
  ipaddress: 'gw_host',
  port: 'gw_port',
  ostype: 'gw_network_os',
  gwOS: 'gw_os',
  user: 'gw_user',
  sshKey: 'gw_ssh_private_key_file',
  hostKeyChecking: 'host_key_checking',
  provider: 'gw_provider',
  password: 'gw_password',
  become: 'gw_become',
  become_method: 'gw_become_method',
  become_pass: 'gw_become_pass',
};

/** Maps createDevice `deviceVars` to gateway variables; a member outside the mapping is refused. */
export function mapDeviceVars(deviceVars: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(deviceVars)) {
    const target = Object.hasOwn(DEVICE_VARS_MAPPING, key) ? DEVICE_VARS_MAPPING[key] : undefined;
    if (target === undefined) unknown.push(key);
    else ownMember(out, target, value);
  }
  if (unknown.length > 0) {
    throw new AppError(
      'VALIDATION_FAILED',
      `deviceVars has members the mapping does not know: ${unknown.join(', ')}; use createDeviceRaw for gateway variables`,
    );
  }
  return out;
}

/** Reads a boolean-ish variable (`true`, `"yes"`, `"True"`, `1`). */
export function truthy(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return ['true', 'yes', 'on', '1'].includes(value.trim().toLowerCase());
  return false;
}

/**
 * `host_key_checking` (or a request's override) as a mode: `true`/`"tofu"`/absent → trust on first
 * use, `"strict"` → strict, `false`/`"off"`/`"no"` → off.
 */
export function hostKeyCheckingOf(value: unknown): HostKeyChecking {
  const mode = hostKeyCheckingMode(value);
  if (mode === undefined) throw new AppError('VALIDATION_FAILED', notAHostKeyCheckingMode(value));
  return mode;
}

function notAHostKeyCheckingMode(value: unknown): string {
  return `host_key_checking "${String(value)}" is not one of true, "tofu", "strict", false, "off"`;
}

/**
 * Replaces every secret by the mask ({@link SECRET_MASK} of the platform's secret policy): the sealed
 * variables named, and any secret left in the values (nested ones are stored masked; this also masks
 * those of a device written before they were sealed).
 */
export function maskVariables(plain: Record<string, unknown>, secretNames: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ...plain };
  for (const name of secretNames) out[name] = SECRET_MASK;
  return redactSecrets(out);
}

/** A store filter and sort built from validated request values only (values are data, never operators). */
export interface DeviceQuery {
  filter: Record<string, unknown>;
  sort: Record<string, 1 | -1>;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function fieldPath(member: string, what: 'filter' | 'sort'): string {
  if (member === 'name' || member === 'created' || member === 'updated' || member === 'groups') return member;
  const variable = member.startsWith('variables.') ? member.slice('variables.'.length) : member;
  if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(variable)) {
    throw new AppError('VALIDATION_FAILED', `Cannot ${what} devices by "${member}": use name, group or a variable name`, {
      details: [{ member: `body.${what}`, message: `unknown member ${member}` }],
    });
  }
  if (isSecretKey(variable)) {
    throw new AppError('VALIDATION_FAILED', `Cannot ${what} devices by the secret variable "${variable}"`, {
      details: [{ member: `body.${what}`, message: `secret member ${member}` }],
    });
  }
  return `variables.${variable}`;
}

/**
 * Builds the store query of the inventory lists. `filter`: `name` (substring, case-insensitive),
 * `group`/`groups` (membership), anything else a non-secret variable compared for equality; every
 * value must be a string, number or boolean. `sort`: `"name"`, `"-name"` or `{ name: 1 }`.
 */
export function buildDeviceQuery(filter: Record<string, unknown> | undefined, sort: unknown): DeviceQuery {
  const query: Record<string, unknown> = {};
  for (const [member, value] of Object.entries(filter ?? {})) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new AppError('VALIDATION_FAILED', `Filter member "${member}" must be a string, number or boolean`, {
        details: [{ member: `body.filter.${member}`, message: 'must be a scalar' }],
      });
    }
    if (member === 'name') {
      query.name = { $regex: escapeRegExp(String(value)), $options: 'i' };
    } else if (member === 'group' || member === 'groups') {
      query.groups = { $eq: String(value) };
    } else {
      query[fieldPath(member, 'filter')] = { $eq: value };
    }
  }
  const order: Record<string, 1 | -1> = {};
  if (typeof sort === 'string' && sort !== '') {
    const descending = sort.startsWith('-');
    order[fieldPath(descending ? sort.slice(1) : sort, 'sort')] = descending ? -1 : 1;
  } else if (isRecord(sort)) {
    for (const [member, direction] of Object.entries(sort)) {
      if (direction !== 1 && direction !== -1) throw new AppError('VALIDATION_FAILED', `Sort direction of "${member}" must be 1 or -1`);
      order[fieldPath(member, 'sort')] = direction;
    }
  }
  if (order.name === undefined) order.name = 1;
  return { filter: query, sort: order };
}

/** True when a URL carries `user[:password]@` before its host. */
function hasUrlCredentials(value: string): boolean {
  try {
    const url = new URL(value);
    return url.username !== '' || url.password !== '';
  } catch {
    return /^[a-z]+:\/\/[^/?#]*@/i.test(value);
  }
}
