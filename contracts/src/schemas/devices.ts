import type { JsonSchema } from '../catalog/types';
import { anyObject, arr, bool, int, mapOf, name, num, obj, str, strings } from './common';

/**
 * Schemas of the device gateway (`gateway-devices`): inventory devices, the netmiko-style SSH
 * parameters, device operations, NETCONF, HTTP requests to devices and runner outcomes.
 */

/** Gateway variables of an inventory device (the spec's `createDevice` list plus `gw_netconf_port`, `gw_http_base_url`). */
export interface DeviceVariables {
  gw_host?: string;
  gw_port?: number;
  gw_connection?: string;
  gw_network_os?: string;
  gw_os?: string;
  gw_user?: string;
  /** Sealed at rest, never returned. */
  gw_password?: string;
  gw_ssh_private_key_file?: string;
  host_key_checking?: boolean | string;
  gw_provider?: string;
  gw_become?: boolean | string;
  gw_become_method?: string;
  /** Sealed at rest, never returned. */
  gw_become_pass?: string;
  gw_netconf_port?: number;
  gw_http_base_url?: string;
  /** Sessions open at once to this device (default 2). */
  gw_session_limit?: number;
  [variable: string]: unknown;
}

/** An inventory device as the gateway answers it: secrets masked. */
export interface InventoryDevice {
  name: string;
  variables: DeviceVariables;
  groups: string[];
  created?: string;
  updated?: string;
  createdBy?: string;
  updatedBy?: string;
}

/** Body of `gateway-devices.runCommand`, the operation the mop service runs commands through. */
export interface RunCommandBody {
  /** Inventory device name. */
  device: string;
  command: string;
  read_timeout?: number;
  expect_string?: string;
  strip_prompt?: boolean;
  strip_command?: boolean;
  cmd_verify?: boolean;
}

/** Result of `gateway-devices.runCommand`. */
export interface RunCommandResult {
  /** `success`, or `error` when the device reported an error line or a non-zero exit status. */
  status: 'success' | 'error';
  device: string;
  command: string;
  /** The raw output of the command (echo and prompt stripped), as a string. */
  response: string;
  errorLines: string[];
  failed: boolean;
  exitCode?: number;
}

/** Result of the runners (playbooks, modules, roles, collections, scripts, infrastructure as code). */
export interface RunOutcome {
  status: 'success' | 'error';
  name: string;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
  /** Parsed JSON of stdout, when stdout is JSON. */
  result?: unknown;
}

const SECRET_NOTE = 'secrets (gw_password, gw_become_pass, key material) are answered masked as "********"';

/** Gateway variables; any further variable is kept as given. */
export const deviceVariablesSchema: JsonSchema = {
  $id: 'nap:schemas/device-variables',
  ...obj(
    {
      gw_host: { type: ['string', 'null'], description: 'address or DNS name' },
      gw_port: { type: ['integer', 'string', 'null'], description: 'SSH port, default 22 (1-65535; a numeric string is accepted)' },
      gw_connection: { type: ['string', 'null'], description: 'connection type (device-type of createDevice), e.g. network_cli, netconf, ssh' },
      gw_network_os: { type: ['string', 'null'], description: 'netmiko device type: cisco_ios, cisco_xe, cisco_nxos, arista_eos, juniper_junos, linux, …' },
      gw_os: { type: ['string', 'null'] },
      gw_user: { type: ['string', 'null'] },
      gw_password: { type: ['string', 'null'], description: 'sealed at rest, never returned' },
      gw_ssh_private_key_file: { type: ['string', 'null'], description: 'path of a private key file, or the key itself (sealed)' },
      host_key_checking: { type: ['boolean', 'string', 'null'], description: 'true or "tofu" (default): trust on first use; "strict"; false or "off"' },
      gw_provider: { type: ['string', 'null'] },
      gw_become: { type: ['boolean', 'string', 'null'], description: 'enter privileged mode after login' },
      gw_become_method: { type: ['string', 'null'] },
      gw_become_pass: { type: ['string', 'null'], description: 'enable secret; sealed at rest, never returned' },
      gw_netconf_port: { type: ['integer', 'string', 'null'], description: 'NETCONF port, default 830' },
      gw_http_base_url: { type: ['string', 'null'], description: 'base URL of the device HTTP API, e.g. https://10.0.0.1:443/api' },
      gw_session_limit: { type: ['integer', 'string', 'null'], description: 'sessions open at once to this device, default 2' },
    },
    [],
    { description: `gateway variables of the device (null removes one in an update); ${SECRET_NOTE}` },
  ),
};

/** An inventory device as answered. */
export const inventoryDeviceSchema: JsonSchema = {
  $id: 'nap:schemas/inventory-device',
  ...obj(
    {
      name: str(),
      variables: anyObject(`gateway variables; ${SECRET_NOTE}`),
      groups: strings(),
      created: str(),
      updated: str(),
      createdBy: str(),
      updatedBy: str(),
    },
    ['name', 'variables', 'groups'],
  ),
};

/** A sort: a field name (`-name` for descending) or `{ field: 1 | -1 }`. */
export const deviceSortSchema: JsonSchema = {
  $id: 'nap:schemas/device-sort',
  anyOf: [str({ minLength: 1 }), mapOf({ type: 'integer', enum: [1, -1] })],
  description: 'name, created, updated, groups or a non-secret variable; "-field" or { field: -1 } for descending',
};

/** Filter of the inventory lists: member name to a value (data, never an operator). */
export const deviceFilterSchema: JsonSchema = {
  $id: 'nap:schemas/device-filter',
  ...mapOf(
    { type: ['string', 'number', 'boolean'] },
    {
      description:
        'name (substring, case-insensitive), group (membership), or a non-secret variable (exact value, as gw_network_os or variables.gw_network_os)',
    },
  ),
};

/** netmiko `send_command` parameters with netmiko's defaults. */
export const sendCommandParameters: Record<string, JsonSchema> = {
  expect_string: str({ description: 'regular expression that ends the read instead of the prompt' }),
  read_timeout: num({ minimum: 0, default: 10, description: 'seconds' }),
  delay_factor: num({ description: 'deprecated in netmiko 4; ignored' }),
  max_loops: int({ description: 'deprecated in netmiko 4; ignored' }),
  auto_find_prompt: bool({ default: true }),
  strip_prompt: bool({ default: true }),
  strip_command: bool({ default: true }),
  normalize: bool({ default: true }),
  use_textfsm: bool({ default: false, description: 'accepted; output is always text' }),
  textfsm_template: str(),
  use_ttp: bool({ default: false, description: 'accepted; output is always text' }),
  ttp_template: str(),
  use_genie: bool({ default: false, description: 'accepted; output is always text' }),
  cmd_verify: bool({ default: true }),
  raise_parsing_error: bool({ default: false }),
};

/** netmiko `send_config_set` parameters with netmiko's defaults. */
export const sendConfigSetParameters: Record<string, JsonSchema> = {
  exit_config_mode: bool({ default: true }),
  read_timeout: num({ minimum: 0, default: 15, description: 'seconds, per command' }),
  delay_factor: num({ description: 'deprecated in netmiko 4; ignored' }),
  max_loops: int({ description: 'deprecated in netmiko 4; ignored' }),
  strip_prompt: bool({ default: false }),
  strip_command: bool({ default: false }),
  config_mode_command: str(),
  cmd_verify: bool({ default: true }),
  enter_config_mode: bool({ default: true }),
  error_pattern: str({ default: '', description: 'regular expression; a match stops the set with DEVICE_COMMAND_FAILED' }),
  terminator: str({ default: '#' }),
  bypass_commands: str({ default: '^banner .*$' }),
  commit: bool({ default: false, description: 'Junos: commit before leaving configuration mode (not a netmiko parameter)' }),
};

/** Connection options of the SSH routes other than operation 11: every member optional. */
export const deviceConnectionOptionsSchema: JsonSchema = {
  $id: 'nap:schemas/device-connection-options',
  ...obj(
    {
      device_type: str({ description: 'netmiko device type; defaults to the inventory device gw_network_os' }),
      username: str(),
      password: str({ description: 'never logged or returned' }),
      secret: str({ description: 'enable secret; never logged or returned' }),
      port: int({ minimum: 1, maximum: 65535 }),
      conn_timeout: num({ minimum: 0, description: 'seconds to log in, default 10' }),
      host_key_checking: { type: ['boolean', 'string'], description: 'true/"tofu", "strict", false/"off"' },
    },
    [],
    { description: 'what the inventory device (when host names one) does not give, or overrides' },
  ),
};

/** One command's output. */
export const commandOutputSchema: JsonSchema = {
  $id: 'nap:schemas/command-output',
  ...obj({ command: str(), output: str(), errorLines: strings(), failed: bool(), exitCode: int() }, ['command', 'output']),
};

/** Result of `runCommand`. */
export const runCommandResultSchema: JsonSchema = {
  $id: 'nap:schemas/run-command-result',
  ...obj(
    {
      status: { type: 'string', enum: ['success', 'error'] },
      device: str(),
      command: str(),
      response: str({ description: 'raw output of the command as a string' }),
      errorLines: strings({ description: 'lines by which the device reported an error' }),
      failed: bool(),
      exitCode: int({ description: 'exit status, for exec-channel devices (linux)' }),
    },
    ['status', 'device', 'command', 'response'],
  ),
};

/** Result of setConfig, loadConfig and restoreConfig. */
export const configChangeResultSchema: JsonSchema = {
  $id: 'nap:schemas/config-change-result',
  ...obj(
    {
      status: { type: 'string', enum: ['success', 'error'] },
      name: str(),
      output: str({ description: 'session transcript' }),
      errors: arr(obj({ command: str(), line: str() })),
      failed: bool(),
      backupId: str({ description: 'id of the backup taken before the change' }),
    },
    ['status', 'name', 'output', 'errors', 'failed'],
  ),
};

/** A configuration backup. */
export const configBackupSchema: JsonSchema = {
  $id: 'nap:schemas/config-backup',
  ...obj({ id: str(), device: str(), created: str(), reason: str(), config: str(), createdBy: str() }, ['id', 'device', 'created']),
};

/** Result of the runners. */
export const runOutcomeSchema: JsonSchema = {
  $id: 'nap:schemas/run-outcome',
  ...obj(
    {
      status: { type: 'string', enum: ['success', 'error'] },
      name: str(),
      exitCode: { type: ['integer', 'null'] },
      stdout: str(),
      stderr: str(),
      durationMs: int({ minimum: 0 }),
      timedOut: bool(),
      result: { description: 'parsed JSON of stdout, when stdout is JSON' },
    },
    ['status', 'exitCode', 'stdout', 'stderr', 'durationMs', 'timedOut'],
  ),
};

/** Arguments of a run: an object (`--key=value`, or extra vars for Ansible) or a list of argv strings. */
export const runArgsSchema: JsonSchema = {
  $id: 'nap:schemas/run-args',
  anyOf: [anyObject(), strings()],
  description: 'object: extra variables (Ansible, IaC -var) or --key=value flags (scripts); array: argv as given',
};

/** Body members shared by the runners. */
export const runBodyMembers: Record<string, JsonSchema> = {
  args: { anyOf: [anyObject(), strings()], description: 'object: extra variables (Ansible, IaC -var) or --key=value flags (scripts); array: argv as given' },
  timeout: num({ exclusiveMinimum: 0, description: 'seconds; capped by the configured run time limit' }),
};

/** Inventory names a runner targets. */
export const hostsMember: JsonSchema = strings({ description: 'inventory device or group names; localhost when absent' });

/** Body of `sendRequest`. */
export const sendRequestBodySchema: JsonSchema = {
  $id: 'nap:schemas/send-request-body',
  ...obj(
    {
      host: name('inventory device name'),
      method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] },
      endpoint: str({ description: 'path below the device gw_http_base_url (an absolute URL must share its origin)' }),
      params: mapOf({ type: ['string', 'number', 'boolean'] }, { description: 'query parameters' }),
      headers: mapOf({ type: 'string' }),
      json: { description: 'JSON request body' },
      data: { description: 'request body: a string sent as is, or an object sent form-encoded' },
      timeout: num({ exclusiveMinimum: 0, description: 'seconds, default 30' }),
      allow_redirects: bool({ default: true, description: 'follow redirects within the device origin' }),
      verify: bool({ default: true, description: 'verify the TLS certificate' }),
    },
    ['host', 'method', 'endpoint'],
  ),
};

/** Result of `sendRequest`. */
export const sendRequestResultSchema: JsonSchema = {
  $id: 'nap:schemas/send-request-result',
  ...obj({ status_code: int(), headers: mapOf({ type: 'string' }), text: str(), json: { description: 'parsed body when it is JSON' }, url: str() }, [
    'status_code',
    'headers',
    'text',
  ]),
};
