import path from 'node:path';
import type { LiveSettings } from '@nap/bus';
import { AppError, SERVICE_SETTINGS_SCHEMAS, parseAs } from '@nap/contracts';
import type { SessionLimiter } from './domain/session-limiter';

/**
 * Settings of the gateway-devices service beyond the shared `NAP_*` runtime configuration, read once
 * from the environment at start; the session limits and timeouts also change live ({@link liveSettings}). Directories default to `<NAP_DATA_DIR>/gateway/<kind>`.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `NAP_GW_SESSION_LIMIT` | 100 | SSH/NETCONF sessions open at once across all devices |
 * | `NAP_GW_DEVICE_SESSION_LIMIT` | 2 | sessions open at once to one device (a device's `gw_session_limit` overrides it) |
 * | `NAP_GW_SESSION_QUEUE_TIMEOUT_MS` | 60000 | how long a request waits for a free session before `DEVICE_TIMEOUT` |
 * | `NAP_GW_CONNECT_TIMEOUT_MS` | 10000 | bound of TCP connect + SSH login + first prompt |
 * | `NAP_GW_PLAYBOOKS_DIR` | `<data>/gateway/playbooks` | playbooks (`*.yml`, `*.yaml`) |
 * | `NAP_GW_MODULES_DIR` | `<data>/gateway/modules` | Ansible modules (library) |
 * | `NAP_GW_RUNNER_MODULES_DIR` | `<data>/gateway/runner-modules` | executables run with JSON arguments on stdin |
 * | `NAP_GW_ROLES_DIR` | `<data>/gateway/roles` | Ansible roles (`<role>/tasks/main.yml`) |
 * | `NAP_GW_COLLECTIONS_DIR` | `<data>/gateway/collections` | `ansible_collections/<ns>/<name>/` |
 * | `NAP_SCRIPTS_DIR` | `<data>/gateway/scripts` | scripts |
 * | `NAP_GW_IAC_DIR` | `<data>/gateway/iac` | one directory of `*.tf` files per module |
 * | `NAP_GW_INVENTORY_FILE` | `<data>/gateway/inventory.json` | inventory read by `refreshInventory` |
 * | `NAP_SSH_KEY_DIR` | `<data>/gateway/ssh-keys` | the only directory whose private key files devices may name (`gw_ssh_private_key_file`, `ansible_*_key_file`); not in backups |
 * | `NAP_GW_RUN_TIMEOUT_MS` | 300000 | time limit of one run (a request may ask for less) |
 * | `NAP_GW_RUN_OUTPUT_BYTES` | 1048576 | stdout and stderr kept per run, each |
 * | `NAP_GW_IAC_BINARY` | `tofu`, else `terraform`, on PATH | the IaC program |
 */
export interface GatewayDevicesConfig {
  globalSessionLimit: number;
  deviceSessionLimit: number;
  sessionQueueTimeoutMs: number;
  connectTimeoutMs: number;
  dirs: {
    playbooks: string;
    modules: string;
    runnerModules: string;
    roles: string;
    collections: string;
    scripts: string;
    iac: string;
  };
  inventoryFile: string;
  /** Where private key files named by devices must lie (their real path); created 0700 at start when missing. */
  sshKeyDir: string;
  runTimeoutMs: number;
  runOutputBytes: number;
  /** Explicit IaC binary; found on PATH when absent. */
  iacBinary?: string;
}

function positiveInt(env: NodeJS.ProcessEnv, key: string, fallback: number, problems: string[]): number {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    problems.push(`${key} must be a whole number of at least 1, got "${raw}"`);
    return fallback;
  }
  return value;
}

/**
 * The directories of the device gateway's files: per kind, the variable that moves it and its place
 * under `<data>/gateway` otherwise (which is also its place in a backup, `nap-data`).
 */
export const GATEWAY_FILE_DIRS = [
  { kind: 'playbooks', variable: 'NAP_GW_PLAYBOOKS_DIR', subdir: 'playbooks' },
  { kind: 'modules', variable: 'NAP_GW_MODULES_DIR', subdir: 'modules' },
  { kind: 'runnerModules', variable: 'NAP_GW_RUNNER_MODULES_DIR', subdir: 'runner-modules' },
  { kind: 'roles', variable: 'NAP_GW_ROLES_DIR', subdir: 'roles' },
  { kind: 'collections', variable: 'NAP_GW_COLLECTIONS_DIR', subdir: 'collections' },
  { kind: 'scripts', variable: 'NAP_SCRIPTS_DIR', subdir: 'scripts' },
  { kind: 'iac', variable: 'NAP_GW_IAC_DIR', subdir: 'iac' },
] as const satisfies readonly { kind: keyof GatewayDevicesConfig['dirs']; variable: string; subdir: string }[];

/** The inventory file's variable and its name under `<data>/gateway` otherwise. */
export const GATEWAY_INVENTORY_FILE = { variable: 'NAP_GW_INVENTORY_FILE', name: 'inventory.json' } as const;

/** The key directory's variable and its name under `<data>/gateway` otherwise. */
export const GATEWAY_SSH_KEY_DIR = { variable: 'NAP_SSH_KEY_DIR', name: 'ssh-keys' } as const;

/** The value of a path variable, resolved; undefined when it is unset or empty. */
export function pathSetting(env: NodeJS.ProcessEnv, key: string): string | undefined {
  const raw = env[key];
  return raw === undefined || raw === '' ? undefined : path.resolve(raw);
}

/** Where the device gateway keeps its files under the data directory `dataDir` and the environment's overrides. */
export function gatewayFileLocations(
  dataDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Pick<GatewayDevicesConfig, 'dirs' | 'inventoryFile'> {
  const base = path.resolve(dataDir, 'gateway');
  const dirs = Object.fromEntries(
    GATEWAY_FILE_DIRS.map(({ kind, variable, subdir }) => [kind, pathSetting(env, variable) ?? path.join(base, subdir)]),
  ) as GatewayDevicesConfig['dirs'];
  return { dirs, inventoryFile: pathSetting(env, GATEWAY_INVENTORY_FILE.variable) ?? path.join(base, GATEWAY_INVENTORY_FILE.name) };
}

/** Reads the gateway settings; a bad value throws naming every problem. */
export function loadGatewayDevicesConfig(dataDir: string, env: NodeJS.ProcessEnv = process.env): GatewayDevicesConfig {
  const problems: string[] = [];
  const config: GatewayDevicesConfig = {
    globalSessionLimit: positiveInt(env, 'NAP_GW_SESSION_LIMIT', 100, problems),
    deviceSessionLimit: positiveInt(env, 'NAP_GW_DEVICE_SESSION_LIMIT', 2, problems),
    sessionQueueTimeoutMs: positiveInt(env, 'NAP_GW_SESSION_QUEUE_TIMEOUT_MS', 60_000, problems),
    connectTimeoutMs: positiveInt(env, 'NAP_GW_CONNECT_TIMEOUT_MS', 10_000, problems),
    ...gatewayFileLocations(dataDir, env),
    sshKeyDir: pathSetting(env, GATEWAY_SSH_KEY_DIR.variable) ?? path.resolve(dataDir, 'gateway', GATEWAY_SSH_KEY_DIR.name),
    runTimeoutMs: positiveInt(env, 'NAP_GW_RUN_TIMEOUT_MS', 300_000, problems),
    runOutputBytes: positiveInt(env, 'NAP_GW_RUN_OUTPUT_BYTES', 1_048_576, problems),
  };
  const iac = env.NAP_GW_IAC_BINARY;
  if (iac !== undefined && iac !== '') config.iacBinary = iac;
  if (problems.length > 0)
    throw new AppError('VALIDATION_FAILED', `Invalid gateway-devices configuration: ${problems.join('; ')}`, { details: problems });
  return config;
}

const schema = SERVICE_SETTINGS_SCHEMAS['gateway-devices'];

/**
 * The device gateway's live settings (`PUT /applications/GatewayDevices/properties`): session limits
 * and timeouts change on every replica while it runs. The configuration object is the one every
 * request reads, so a new timeout applies from the next request on; the limiter lets waiting
 * requests in at once when a limit rises.
 */
export function liveSettings(config: GatewayDevicesConfig, limiter: SessionLimiter): LiveSettings {
  return {
    schema,
    defaults: {
      sessionLimit: config.globalSessionLimit,
      deviceSessionLimit: config.deviceSessionLimit,
      sessionQueueTimeoutMs: config.sessionQueueTimeoutMs,
      connectTimeoutMs: config.connectTimeoutMs,
      runTimeoutMs: config.runTimeoutMs,
    },
    apply(values) {
      const { sessionLimit, deviceSessionLimit, sessionQueueTimeoutMs, connectTimeoutMs, runTimeoutMs } = parseAs(
        schema,
        values,
        'properties',
      );
      if (sessionLimit !== undefined) config.globalSessionLimit = sessionLimit;
      if (deviceSessionLimit !== undefined) config.deviceSessionLimit = deviceSessionLimit;
      if (sessionQueueTimeoutMs !== undefined) config.sessionQueueTimeoutMs = sessionQueueTimeoutMs;
      if (connectTimeoutMs !== undefined) config.connectTimeoutMs = connectTimeoutMs;
      if (runTimeoutMs !== undefined) config.runTimeoutMs = runTimeoutMs;
      limiter.setLimits({
        globalLimit: config.globalSessionLimit,
        perDeviceLimit: config.deviceSessionLimit,
        queueTimeoutMs: config.sessionQueueTimeoutMs,
      });
    },
  };
}
