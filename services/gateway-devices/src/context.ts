import { AppError, SECRET_MASK, checkNotReservedKey, checkPrintableName, knownHostsKey } from '@nap/contracts';
import type { Caller, ConfigChangeResult } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import type { DeviceAccess, SessionRunOptions } from './clients/device-access';
import { KEY_MATERIAL, isKeyFileVariable, keyPathAdvice, keyPathProblem } from './clients/key-files';
import type { SendConfigSetOptions } from './clients/netmiko-options';
import type { ProcessOutcome } from './clients/process-run';
import type { Runners } from './clients/runners';
import type { SshSession } from './clients/ssh-session';
import type { GatewayDevicesConfig } from './config';
import { DEFAULT_PORTS, optionalInt, optionalString } from './domain/connection-settings';
import { CONNECTION_VARIABLES, isHostLocalConnection } from './domain/device-variables';
import type { SessionLimiter } from './domain/session-limiter';
import type { DeviceDoc } from './store/collections';
import type { DeviceView, InventoryRepository, UpsertMode } from './store/inventory-repository';
import type { KnownHostsAdmin, KnownHostsStore } from './store/known-hosts-repository';
import type { TemplateRepository } from './store/template-repository';

/** What every handler of the gateway-devices service receives, as `svc`. */
export interface GatewayDevicesContext {
  /** The inventory store: devices, groups, backups. */
  inventory: InventoryRepository;
  templates: TemplateRepository;
  /** Trusted host keys (the store's `known_hosts`), as sessions check them and operators list, pin and forget them. */
  knownHosts: KnownHostsStore & KnownHostsAdmin;
  /** SSH and NETCONF sessions with devices, through the limiter. */
  access: DeviceAccess;
  limiter: SessionLimiter;
  runners: Runners;
  config: GatewayDevicesConfig;
  logger: Logger;
}

/** A device's stored record (secrets masked) with its trusted host key and the names of its secrets. */
export type DeviceDetails = DeviceView & { hostKeyFingerprint: string | null; secretVariables: string[] };

/** How a device write names its members, and where its variables come from. */
export interface DeviceWriteOptions {
  /** The request member that gave a gateway variable (createDevice's `deviceVars`); `body.variables.<name>` otherwise. */
  memberOf?: (variable: string) => string;
  /**
   * The variables come from the inventory file the operator placed on the host (`refreshInventory`),
   * not from the caller: its connections stand, and its key files are checked when a run or a
   * session reads them, so that one device does not stop the whole file.
   */
  fromInventoryFile?: boolean;
}

/**
 * Creates and/or updates a device (see {@link InventoryRepository.upsert}). Every inventory write
 * goes through here so that the session limiter's per-device limit follows `gw_session_limit`; the
 * log names the device, never its variables. Refused: a key file outside the key directory (400
 * `VALIDATION_FAILED` naming the member), and a connection on the platform's own host written by a
 * caller who is not an admin (403 `FORBIDDEN` naming the member), see {@link checkDeviceWrite}.
 */
export async function writeDevice(
  svc: GatewayDevicesContext,
  name: string,
  input: { variables?: Record<string, unknown>; groups?: string[] },
  mode: UpsertMode,
  caller: Caller,
  options: DeviceWriteOptions = {},
): Promise<{ doc: DeviceDoc; created: boolean }> {
  // a new device's name is one people choose; an update finds the device by the name it has. A
  // device and its groups are kept by name (the session limiter's and the runners' inventories)
  if (mode !== 'update') {
    checkPrintableName(name, 'body.name');
    checkNotReservedKey(name, 'body.name', 'name');
    input.groups?.forEach((group, i) => checkNotReservedKey(group, `body.groups[${i}]`, 'group name'));
  }
  if (options.fromInventoryFile !== true) await checkDeviceWrite(svc, name, input.variables ?? {}, mode, caller, options.memberOf);
  const result = await svc.inventory.upsert(name, input, mode, caller.username);
  svc.access.trackSessionLimit(result.doc.name, result.doc.variables);
  svc.logger.info(
    { device: name, created: result.created, by: caller.username },
    result.created ? 'Inventory device created' : 'Inventory device updated',
  );
  return result;
}

/**
 * What a caller may not write into a device:
 * - a private key file (`gw_ssh_private_key_file`, `ansible_*_key_file`) that is not an absolute path
 *   inside the key directory (`NAP_SSH_KEY_DIR`) by its path and, when it exists, its real path:
 *   otherwise the platform would log in with any file it can read (its host keys, another team's
 *   keys). 400 `VALIDATION_FAILED`, every such member named. Sessions and runs check again as they
 *   read the file.
 * - unless an admin, a device whose connection (`gw_connection`, `ansible_connection`, given or
 *   stored) acts on the platform's own host (`local`, …): runs on it would run on the platform's
 *   host with the variables the writer chose. 403 `FORBIDDEN` naming the member.
 */
async function checkDeviceWrite(
  svc: GatewayDevicesContext,
  name: string,
  variables: Record<string, unknown>,
  mode: UpsertMode,
  caller: Caller,
  memberOf: (variable: string) => string = (variable) => `body.variables.${variable}`,
): Promise<void> {
  const keyDir = svc.config.sshKeyDir;
  const problems: { member: string; message: string }[] = [];
  for (const [variable, value] of Object.entries(variables)) {
    // a mask keeps the stored secret; material is no path
    if (!isKeyFileVariable(variable) || typeof value !== 'string' || value === SECRET_MASK || KEY_MATERIAL.test(value)) continue;
    const problem = await keyPathProblem(value, keyDir);
    if (problem !== undefined) problems.push({ member: memberOf(variable), message: `${variable} ${keyPathAdvice(problem, keyDir)}` });
  }
  if (problems.length > 0) {
    throw new AppError('VALIDATION_FAILED', `Device "${name}": ${problems.map((p) => p.message).join('; ')}`, { details: problems });
  }
  if (caller.roles.includes('admin')) return;
  const stored = mode === 'create' ? null : await svc.inventory.find(name);
  for (const variable of CONNECTION_VARIABLES) {
    const given = Object.hasOwn(variables, variable);
    const value = given ? variables[variable] : stored?.variables[variable];
    if (!isHostLocalConnection(value)) continue;
    const member = memberOf(variable);
    const what = `${variable} "${String(value)}" runs Ansible on the platform's own host, not on a device`;
    throw new AppError(
      'FORBIDDEN',
      given
        ? `Only an admin may give device "${name}" a connection on the platform's host: ${what}`
        : `Only an admin may change device "${name}": its ${what}`,
      { details: [{ member, message: `${variable} "${String(value)}" is for admins only` }] },
    );
  }
}

/** {@link writeDevice}, answering the device as viewed (secrets masked). */
export async function writeDeviceView(
  svc: GatewayDevicesContext,
  name: string,
  input: { variables?: Record<string, unknown>; groups?: string[] },
  mode: UpsertMode,
  caller: Caller,
  options: DeviceWriteOptions = {},
): Promise<DeviceView> {
  return svc.inventory.view((await writeDevice(svc, name, input, mode, caller, options)).doc);
}

/** Deletes a device and its backups, and drops its session limit. Errors: `DEVICE_NOT_FOUND`. */
export async function removeDevice(svc: GatewayDevicesContext, name: string, caller: Caller): Promise<{ status: string; message: string }> {
  const doc = await svc.inventory.get(name);
  await svc.inventory.delete(name);
  svc.access.trackSessionLimit(name, { ...doc.variables, gw_session_limit: undefined });
  svc.logger.info({ device: name, by: caller.username }, 'Inventory device deleted');
  return { status: 'success', message: `Device "${name}" deleted` };
}

/** The stored record (secrets masked) with the trusted host key fingerprint of its SSH endpoint. */
export async function deviceDetails(svc: GatewayDevicesContext, doc: DeviceDoc): Promise<DeviceDetails> {
  const hostPort = knownHostsKey(
    optionalString(doc.variables.gw_host) ?? doc.name,
    optionalInt(doc.variables.gw_port) ?? DEFAULT_PORTS.ssh,
  );
  return {
    ...svc.inventory.view(doc),
    hostKeyFingerprint: (await svc.knownHosts.get(hostPort)) ?? null,
    secretVariables: Object.keys(doc.secrets ?? {}).sort(),
  };
}

/** The device's running configuration; `forBackup` reads it in the form that can be sent back (Junos: as `set` statements). */
export async function readRunningConfig(session: SshSession, forBackup: boolean): Promise<string> {
  const backupCommand =
    session.profile.deviceType === 'juniper_junos' ? 'show configuration | display set' : session.profile.commands.getConfig;
  const result = await session.sendCommand(forBackup ? backupCommand : session.profile.commands.getConfig, { read_timeout: 60 });
  return result.output;
}

/**
 * Backs up the running configuration of inventory device `name`, then applies `lines`, in one
 * session. The gateway's configuration operations apply: on Junos that means commit.
 */
export async function applyConfigChange(
  svc: GatewayDevicesContext,
  change: { name: string; lines: string[]; options: SendConfigSetOptions; reason: string; caller: Caller },
  run: SessionRunOptions,
): Promise<ConfigChangeResult> {
  const { name } = change;
  await svc.inventory.get(name);
  return svc.access.withInventoryCli(
    name,
    async (session) => {
      const before = await readRunningConfig(session, true);
      const backup = await svc.inventory.addBackup(name, before, change.reason, change.caller.username);
      const junos = session.profile.deviceType === 'juniper_junos';
      const result = await session.sendConfigSet(change.lines, { ...change.options, ...(junos ? { commit: true } : {}) });
      return {
        status: result.failed ? 'error' : 'success',
        name,
        output: result.output,
        errors: result.errors,
        failed: result.failed,
        backupId: backup._id,
      };
    },
    run,
  );
}

/** Logs a finished run (name, status, exit code, duration; never its output) and answers it. */
export function loggedRun(svc: GatewayDevicesContext, what: string, outcome: ProcessOutcome): ProcessOutcome {
  svc.logger.info({ run: what, status: outcome.status, exitCode: outcome.exitCode, durationMs: outcome.durationMs }, 'Runner finished');
  return outcome;
}
