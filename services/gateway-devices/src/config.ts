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

function dir(env: NodeJS.ProcessEnv, key: string, fallback: string): string {
  const raw = env[key];
  return path.resolve(raw === undefined || raw === '' ? fallback : raw);
}

/** Reads the gateway settings; a bad value throws naming every problem. */
export function loadGatewayDevicesConfig(dataDir: string, env: NodeJS.ProcessEnv = process.env): GatewayDevicesConfig {
  const problems: string[] = [];
  const base = path.join(dataDir, 'gateway');
  const config: GatewayDevicesConfig = {
    globalSessionLimit: positiveInt(env, 'NAP_GW_SESSION_LIMIT', 100, problems),
    deviceSessionLimit: positiveInt(env, 'NAP_GW_DEVICE_SESSION_LIMIT', 2, problems),
    sessionQueueTimeoutMs: positiveInt(env, 'NAP_GW_SESSION_QUEUE_TIMEOUT_MS', 60_000, problems),
    connectTimeoutMs: positiveInt(env, 'NAP_GW_CONNECT_TIMEOUT_MS', 10_000, problems),
    dirs: {
      playbooks: dir(env, 'NAP_GW_PLAYBOOKS_DIR', path.join(base, 'playbooks')),
      modules: dir(env, 'NAP_GW_MODULES_DIR', path.join(base, 'modules')),
      runnerModules: dir(env, 'NAP_GW_RUNNER_MODULES_DIR', path.join(base, 'runner-modules')),
      roles: dir(env, 'NAP_GW_ROLES_DIR', path.join(base, 'roles')),
      collections: dir(env, 'NAP_GW_COLLECTIONS_DIR', path.join(base, 'collections')),
      scripts: dir(env, 'NAP_SCRIPTS_DIR', path.join(base, 'scripts')),
      iac: dir(env, 'NAP_GW_IAC_DIR', path.join(base, 'iac')),
    },
    inventoryFile: dir(env, 'NAP_GW_INVENTORY_FILE', path.join(base, 'inventory.json')),
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
