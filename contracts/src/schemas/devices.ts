import type { Static, TSchema } from '@sinclair/typebox';
import { Type, anyObject, anyValue, arr, bool, int, mapOf, name, num, obj, oneOf, open, str, strings, withId } from './common';

/**
 * Schemas of the device gateway (`gateway-devices`): inventory devices, the netmiko-style SSH
 * parameters, device operations, NETCONF, HTTP requests to devices and runner outcomes.
 */

/** A schema whose `type` lists several JSON types (`['string', 'null']`), typed as `T`. */
function anyOfTypes<T>(types: readonly string[], description?: string) {
  return Type.Unsafe<T>(description === undefined ? { type: [...types] } : { type: [...types], description });
}

/** A value that is sent as a string, a number or a boolean (filters, query parameters). */
function scalar() {
  return anyOfTypes<string | number | boolean>(['string', 'number', 'boolean']);
}

/** Success or error of a device operation or a run. */
function outcomeStatus() {
  return oneOf(['success', 'error']);
}

const SECRET_NOTE = 'secrets (gw_password, gw_become_pass, key material) are answered masked as "********"';

/**
 * Gateway variables of an inventory device (the spec's `createDevice` list plus `gw_netconf_port`,
 * `gw_http_base_url`, `gw_session_limit`); any further variable is kept as given.
 */
export const deviceVariablesSchema = withId(
  'nap:schemas/device-variables',
  open(
    {
      gw_host: anyOfTypes<string | null>(['string', 'null'], 'address or DNS name'),
      gw_port: anyOfTypes<number | string | null>(
        ['integer', 'string', 'null'],
        'SSH port, default 22 (1-65535; a numeric string is accepted)',
      ),
      gw_connection: anyOfTypes<string | null>(
        ['string', 'null'],
        'connection type (device-type of createDevice), e.g. network_cli, netconf, ssh',
      ),
      gw_network_os: anyOfTypes<string | null>(
        ['string', 'null'],
        'netmiko device type: cisco_ios, cisco_xe, cisco_nxos, arista_eos, juniper_junos, linux, …',
      ),
      gw_os: anyOfTypes<string | null>(['string', 'null']),
      gw_user: anyOfTypes<string | null>(['string', 'null']),
      gw_password: anyOfTypes<string | null>(['string', 'null'], 'sealed at rest, never returned'),
      gw_ssh_private_key_file: anyOfTypes<string | null>(['string', 'null'], 'path of a private key file, or the key itself (sealed)'),
      host_key_checking: anyOfTypes<boolean | string | null>(
        ['boolean', 'string', 'null'],
        'true or "tofu" (default): trust on first use; "strict"; false or "off"',
      ),
      gw_provider: anyOfTypes<string | null>(['string', 'null']),
      gw_become: anyOfTypes<boolean | string | null>(['boolean', 'string', 'null'], 'enter privileged mode after login'),
      gw_become_method: anyOfTypes<string | null>(['string', 'null']),
      gw_become_pass: anyOfTypes<string | null>(['string', 'null'], 'enable secret; sealed at rest, never returned'),
      gw_netconf_port: anyOfTypes<number | string | null>(['integer', 'string', 'null'], 'NETCONF port, default 830'),
      gw_http_base_url: anyOfTypes<string | null>(['string', 'null'], 'base URL of the device HTTP API, e.g. https://10.0.0.1:443/api'),
      gw_session_limit: anyOfTypes<number | string | null>(
        ['integer', 'string', 'null'],
        'sessions open at once to this device, default 2',
      ),
    },
    [],
    { description: `gateway variables of the device (null removes one in an update); ${SECRET_NOTE}` },
  ),
);
/** Gateway variables of an inventory device as a request gives them; `null` removes one in an update. */
export type DeviceVariables = Static<typeof deviceVariablesSchema>;

/** An inventory device as answered. */
export const inventoryDeviceSchema = withId(
  'nap:schemas/inventory-device',
  obj(
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
);
/** An inventory device as the gateway answers it: secrets masked. */
export type InventoryDevice = Static<typeof inventoryDeviceSchema>;

/** A sort: a field name (`-name` for descending) or `{ field: 1 | -1 }`. */
export const deviceSortSchema = withId(
  'nap:schemas/device-sort',
  Type.Union([str({ minLength: 1 }), mapOf(Type.Unsafe<1 | -1>({ type: 'integer', enum: [1, -1] }))], {
    description: 'name, created, updated, groups or a non-secret variable; "-field" or { field: -1 } for descending',
  }),
);
/** A sort of the inventory lists. */
export type DeviceSort = Static<typeof deviceSortSchema>;

/** Filter of the inventory lists: member name to a value (data, never an operator). */
export const deviceFilterSchema = withId(
  'nap:schemas/device-filter',
  mapOf(scalar(), {
    description:
      'name (substring, case-insensitive), group (membership), or a non-secret variable (exact value, as gw_network_os or variables.gw_network_os)',
  }),
);
/** A filter of the inventory lists. */
export type DeviceFilter = Static<typeof deviceFilterSchema>;

/** netmiko `send_command` parameters with netmiko's defaults. */
export const sendCommandParameters = {
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
export const sendConfigSetParameters = {
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

/** The members a set of parameter schemas describes, every one optional. */
type OptionalMembers<P extends Record<string, TSchema>> = { [K in keyof P]?: Static<P[K]> };

/** The `send_command` parameters of a request body. */
export type SendCommandParameters = OptionalMembers<typeof sendCommandParameters>;

/** The `send_config_set` parameters of a request body. */
export type SendConfigSetParameters = OptionalMembers<typeof sendConfigSetParameters>;

/** Connection options of the SSH routes other than `POST /gw/ssh/send_command`: every member optional. */
export const deviceConnectionOptionsSchema = withId(
  'nap:schemas/device-connection-options',
  obj(
    {
      device_type: str({ description: 'netmiko device type; defaults to the inventory device gw_network_os' }),
      username: str(),
      password: str({ description: 'never logged or returned' }),
      secret: str({ description: 'enable secret; never logged or returned' }),
      port: int({ minimum: 1, maximum: 65535 }),
      conn_timeout: num({ minimum: 0, description: 'seconds to log in, default 10' }),
      host_key_checking: anyOfTypes<boolean | string>(['boolean', 'string'], 'true/"tofu", "strict", false/"off"'),
    },
    [],
    { description: 'what the inventory device (when host names one) does not give, or overrides' },
  ),
);
/** What a request may give to reach a device, by netmiko's names; the inventory fills the rest. */
export type DeviceConnectionOptions = Static<typeof deviceConnectionOptionsSchema>;

/** One command's output. */
export const commandOutputSchema = withId(
  'nap:schemas/command-output',
  obj({ command: str(), output: str(), errorLines: strings(), failed: bool(), exitCode: int() }, ['command', 'output']),
);
/** One command's output. */
export type CommandOutput = Static<typeof commandOutputSchema>;

/** Body of `gateway-devices.runCommand`, the operation the mop service runs commands through. */
export function runCommandBody() {
  return obj({ device: name('inventory device name'), command: name('command text'), ...sendCommandParameters }, ['device', 'command']);
}
/** Body of `gateway-devices.runCommand`. */
export type RunCommandBody = Static<ReturnType<typeof runCommandBody>>;

/**
 * Result of `runCommand`: every member but `exitCode` is always answered. `status` is `error` when the
 * device reported an error line or a non-zero exit status (then `failed` is true); `response` is the
 * raw output (echo and prompt stripped) as a string.
 */
export const runCommandResultSchema = withId(
  'nap:schemas/run-command-result',
  obj(
    {
      status: outcomeStatus(),
      device: str(),
      command: str(),
      response: str({ description: 'raw output of the command as a string' }),
      errorLines: strings({ description: 'lines by which the device reported an error' }),
      failed: bool(),
      exitCode: int({ description: 'exit status, for exec-channel devices (linux)' }),
    },
    ['status', 'device', 'command', 'response', 'errorLines', 'failed'],
  ),
);
/** Result of `gateway-devices.runCommand`. */
export type RunCommandResult = Static<typeof runCommandResultSchema>;

/** Result of setConfig, loadConfig and restoreConfig. */
export const configChangeResultSchema = withId(
  'nap:schemas/config-change-result',
  obj(
    {
      status: outcomeStatus(),
      name: str(),
      output: str({ description: 'session transcript' }),
      errors: arr(obj({ command: str(), line: str() })),
      failed: bool(),
      backupId: str({ description: 'id of the backup taken before the change' }),
    },
    ['status', 'name', 'output', 'errors', 'failed'],
  ),
);
/** Result of setConfig, loadConfig and restoreConfig. */
export type ConfigChangeResult = Static<typeof configChangeResultSchema>;

/** A configuration backup. */
export const configBackupSchema = withId(
  'nap:schemas/config-backup',
  obj({ id: str(), device: str(), created: str(), reason: str(), config: str(), createdBy: str() }, ['id', 'device', 'created']),
);
/** A configuration backup as listed. */
export type ConfigBackup = Static<typeof configBackupSchema>;

/** Result of the runners. */
export const runOutcomeSchema = withId(
  'nap:schemas/run-outcome',
  obj(
    {
      status: outcomeStatus(),
      name: str(),
      exitCode: anyOfTypes<number | null>(['integer', 'null']),
      stdout: str(),
      stderr: str(),
      durationMs: int({ minimum: 0 }),
      timedOut: bool(),
      result: anyValue({ description: 'parsed JSON of stdout, when stdout is JSON' }),
    },
    ['status', 'exitCode', 'stdout', 'stderr', 'durationMs', 'timedOut'],
  ),
);
/** Result of the runners (playbooks, modules, roles, collections, scripts, infrastructure as code). */
export type RunOutcome = Static<typeof runOutcomeSchema>;

const RUN_ARGS_NOTE = 'object: extra variables (Ansible, IaC -var) or --key=value flags (scripts); array: argv as given';

/** Arguments of a run: an object (`--key=value`, or extra vars for Ansible) or a list of argv strings. */
export const runArgsSchema = withId('nap:schemas/run-args', Type.Union([anyObject(), strings()], { description: RUN_ARGS_NOTE }));
/** Arguments of a run. */
export type RunArgs = Static<typeof runArgsSchema>;

/** Body members shared by the runners. */
export const runBodyMembers = {
  args: Type.Union([anyObject(), strings()], { description: RUN_ARGS_NOTE }),
  timeout: num({ exclusiveMinimum: 0, description: 'seconds; capped by the configured run time limit' }),
};

/** Inventory names a runner targets. */
export const hostsMember = strings({ description: 'inventory device or group names; localhost when absent' });

/** Body of `sendRequest`. */
export const sendRequestBodySchema = withId(
  'nap:schemas/send-request-body',
  obj(
    {
      host: name('inventory device name'),
      method: oneOf(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']),
      endpoint: str({ description: 'path below the device gw_http_base_url (an absolute URL must share its origin)' }),
      params: mapOf(scalar(), { description: 'query parameters' }),
      headers: mapOf(str()),
      json: anyValue({ description: 'JSON request body' }),
      data: anyValue({ description: 'request body: a string sent as is, or an object sent form-encoded' }),
      timeout: num({ exclusiveMinimum: 0, description: 'seconds, default 30' }),
      allow_redirects: bool({ default: true, description: 'follow redirects within the device origin' }),
      verify: bool({ default: true, description: 'verify the TLS certificate' }),
    },
    ['host', 'method', 'endpoint'],
  ),
);
/** Body of `sendRequest`. */
export type SendRequestBody = Static<typeof sendRequestBodySchema>;

/** Result of `sendRequest`. */
export const sendRequestResultSchema = withId(
  'nap:schemas/send-request-result',
  obj(
    { status_code: int(), headers: mapOf(str()), text: str(), json: anyValue({ description: 'parsed body when it is JSON' }), url: str() },
    ['status_code', 'headers', 'text'],
  ),
);
/** Result of `sendRequest`: the device's answer, any status. */
export type SendRequestResult = Static<typeof sendRequestResultSchema>;
