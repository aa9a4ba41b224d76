import { ROLE_SETS } from '../roles';
import type { Role } from '../roles';
import { acknowledgement, anyObject, arr, bool, closed, embed, int, mapOf, name, obj, pageOf, resultsOf, str, strings } from '../schemas/common';
import {
  deviceTemplateInputSchema,
  deviceTemplateSchema,
  deviceTemplateSearchResultSchema,
  searchDeviceTemplatesBodySchema,
} from '../schemas/device-template';
import {
  commandOutputSchema,
  configBackupSchema,
  configChangeResultSchema,
  deviceConnectionOptionsSchema,
  deviceFilterSchema,
  deviceSortSchema,
  deviceVariablesSchema,
  hostsMember,
  inventoryDeviceSchema,
  runBodyMembers,
  runCommandResultSchema,
  runOutcomeSchema,
  sendCommandParameters,
  sendConfigSetParameters,
  sendRequestBodySchema,
  sendRequestResultSchema,
} from '../schemas/devices';
import { sshSendCommandBodySchema, sshSendCommandResultSchema } from '../schemas/ssh';
import type { JsonSchema } from './types';
import type { OperationSpec } from './define';
import { defineOperations, TIMEOUTS_MS } from './define';

function device(): JsonSchema {
  return obj({ name: name('inventory device name') }, ['name']);
}

function deviceWith(properties: Record<string, JsonSchema>, required: readonly string[]): JsonSchema {
  return obj({ name: name('inventory device name'), ...properties }, ['name', ...required]);
}

function named(what: string): JsonSchema {
  return obj({ name: name(what) }, ['name']);
}

function run(what: string, extra: Record<string, JsonSchema> = {}): JsonSchema {
  return obj({ name: name(what), ...runBodyMembers, ...extra }, ['name']);
}

function inCollection(what: string, runnable = false): JsonSchema {
  return obj(
    {
      collection: name('collection name, namespace.collection'),
      name: name(what),
      ...(runnable ? { ...runBodyMembers, hosts: hostsMember } : {}),
    },
    ['collection', 'name'],
  );
}

function nothing(): JsonSchema {
  return { type: 'object', properties: {}, additionalProperties: false };
}

const anything = anyObject();
const list = resultsOf({ type: 'object' });
const runOutcome = embed(runOutcomeSchema);
const deviceView = embed(inventoryDeviceSchema);
const deviceList = resultsOf(embed(inventoryDeviceSchema));
const variables = embed(deviceVariablesSchema);
const filter = embed(deviceFilterSchema);
const runnerEntry = obj({ name: str(), path: str({ description: 'relative to the configured directory' }), description: str() }, ['name']);
const runnerList = resultsOf(runnerEntry);

type Kind = 'read' | 'write' | 'run' | 'long';
const ROLES_OF: Record<Kind, readonly Role[]> = { read: ROLE_SETS.read, write: ROLE_SETS.write, run: ROLE_SETS.run, long: ROLE_SETS.run };
const TIMEOUT_OF: Record<Kind, number> = { read: TIMEOUTS_MS.default, write: TIMEOUTS_MS.default, run: TIMEOUTS_MS.device, long: TIMEOUTS_MS.long };

/** A gateway method with no HTTP route: `[name, summary, kind, body, response, notes?]`. */
type BusMethod = readonly [string, string, Kind, JsonSchema, JsonSchema, string?];

const DEVICE_VARS = closed(
  {
    'device-type': str({ description: 'to gw_connection' }),
    ipaddress: str({ description: 'to gw_host' }),
    port: int({ minimum: 1, maximum: 65535, description: 'to gw_port' }),
    ostype: str({ description: 'to gw_network_os' }),
    gwOS: str({ description: 'to gw_os' }),
    user: str({ description: 'to gw_user' }),
    sshKey: str({ description: 'to gw_ssh_private_key_file' }),
    hostKeyChecking: { type: ['boolean', 'string'], description: 'to host_key_checking' },
    provider: str({ description: 'to gw_provider' }),
    password: str({ description: 'to gw_password; never returned' }),
    become: { type: ['boolean', 'string'], description: 'to gw_become' },
    become_method: str({ description: 'to gw_become_method' }),
    become_pass: str({ description: 'to gw_become_pass; never returned' }),
  },
  [],
  { description: 'device variables, mapped to gateway variables exactly as the spec lists; no other member' },
);

const listPage = { skip: int({ minimum: 0 }), limit: int({ minimum: 0, description: '0 or absent: no limit' }) };
const sshDeviceNote = 'Sessions go through the process-wide session limiter (gw_session_limit per device, default 2).';

/** The gateway methods the spec lists without an HTTP route (section "Gateway operations"). */
const BUS_METHODS: readonly BusMethod[] = [
  // devices
  ['createDevice', 'Create a device, mapping deviceVars to gateway variables', 'write', deviceWith({ deviceVars: DEVICE_VARS, groups: strings() }, ['deviceVars']), deviceView,
    'deviceVars map as the spec says: device-type→gw_connection, ipaddress→gw_host, port→gw_port, ostype→gw_network_os, gwOS→gw_os, user→gw_user, sshKey→gw_ssh_private_key_file, hostKeyChecking→host_key_checking, provider→gw_provider, password→gw_password, become→gw_become, become_method→gw_become_method, become_pass→gw_become_pass. 409 DEVICE_ALREADY_EXISTS when the name exists.'],
  ['createDeviceRaw', 'Create a device with gateway variables as given', 'write', deviceWith({ variables, groups: strings() }, ['variables']), deviceView, 'Variables are stored unchanged (secrets sealed). 409 when the name exists.'],
  ['updateDevice', 'Update the variables of a device', 'write', deviceWith({ variables: anyObject('variables to set; null removes one'), groups: strings() }, ['variables']), deviceView],
  ['deleteDevice', 'Delete a device', 'write', device(), acknowledgement()],
  ['getDevice', 'Get a device', 'read', device(), deviceView],
  ['getDevices', 'Get all devices', 'read', obj({ ...listPage }), deviceList],
  ['getDevicesFiltered', 'Get devices filtered by criteria', 'read', obj({ filter, ...listPage, sort: embed(deviceSortSchema) }, ['filter']), deviceList],
  ['getDeviceDetailsRaw', 'Get the raw details of a device', 'read', device(), anything, 'The stored record (secrets masked) with the trusted host key fingerprint.'],
  ['getDevicesDetailsRaw', 'Get the raw details of devices', 'read', obj({ names: strings({ description: 'device names; all devices when absent' }) }), list],
  ['getDeviceHealth', 'Get memory and cpu utilization of a device', 'run', device(), obj({ name: str(), cpu: anything, memory: anything, outputs: arr(embed(commandOutputSchema)) }, ['name', 'cpu', 'memory']), sshDeviceNote],
  ['getDeviceInfo', 'Get type and mac addresses of a device', 'run', device(), obj({ name: str(), type: str(), macAddresses: strings(), outputs: arr(embed(commandOutputSchema)) }, ['name', 'type', 'macAddresses']), sshDeviceNote],
  ['connectDevice', 'Connect to a device and report its status', 'run', device(), obj({ name: str(), connected: bool(), prompt: str(), hostKeyFingerprint: str() }, ['name', 'connected']), 'Connection failures answer their own error code (DEVICE_SSH_AUTH_FAILED, DEVICE_UNREACHABLE, …).'],
  ['isAlive', 'Report whether a device answers', 'run', device(), obj({ name: str(), alive: bool(), code: str({ description: 'error code when not alive' }), message: str() }, ['alive']), 'Never fails for a device that does not answer: alive false with the error code.'],
  ['getOperationalData', 'Get operational data of a device', 'run', deviceWith({ filter: { anyOf: [str(), strings()], description: 'interfaces, routes, arp, neighbors, clock, version; all when absent' } }, []), obj({ name: str(), data: mapOf({ type: 'string' }) }, ['name', 'data']), sshDeviceNote],
  // device groups
  ['createDeviceGroup', 'Create a device group', 'write', obj({ name: name('group name'), description: str(), devices: strings() }, ['name']), anything],
  ['updateDeviceGroup', 'Update a device group', 'write', obj({ name: name('group name'), description: str(), devices: strings({ description: 'replaces the members when given' }) }, ['name']), anything],
  ['deleteDeviceGroup', 'Delete a device group', 'write', named('group name'), acknowledgement()],
  ['getDeviceGroup', 'Get a device group', 'read', named('group name'), anything],
  ['getDeviceGroups', 'Get all device groups', 'read', obj(), list],
  ['addDeviceToDeviceGroup', 'Add devices to a device group', 'write', obj({ group: name('group name'), devices: strings({ minItems: 1 }) }, ['group', 'devices']), anything],
  ['deleteDeviceFromDeviceGroup', 'Remove devices from a device group', 'write', obj({ group: name('group name'), devices: strings({ minItems: 1 }) }, ['group', 'devices']), anything],
  // configuration
  ['getConfig', 'Get the configuration of a device', 'run', deviceWith({ backup: bool({ default: false, description: 'also keep it as a backup' }) }, []), obj({ name: str(), config: str(), backupId: str() }, ['name', 'config']), sshDeviceNote],
  ['setConfig', 'Apply configuration lines to a device', 'run', deviceWith({ config: { anyOf: [strings({ minItems: 1 }), str()], description: 'configuration lines' }, ...sendConfigSetParameters }, ['config']), embed(configChangeResultSchema), 'A backup of the running configuration is kept before the change.'],
  ['loadConfig', 'Load raw configuration lines onto a device', 'run', deviceWith({ config: str({ description: 'raw configuration text' }), commit: bool({ default: true, description: 'Junos: commit' }) }, ['config']), embed(configChangeResultSchema), 'Comment lines (!, #), blank lines, "end" and show headers are dropped; the rest is sent in configuration mode. A backup is kept first.'],
  ['restoreConfig', 'Restore a configuration onto a device', 'run', deviceWith({ backupId: str({ description: 'a backup of the device; the latest when neither backupId nor config is given' }), config: str({ description: 'configuration text to restore' }) }, []), embed(configChangeResultSchema), 'Merges the saved lines (lines added since are not removed). A backup of the current configuration is kept first.'],
  ['runCommand', 'Run a command on a device', 'run', obj({ device: name('inventory device name'), command: name('command text'), ...sendCommandParameters }, ['device', 'command']), embed(runCommandResultSchema),
    'What the mop service runs commands through. response holds the raw output as a string; a device error line sets status error and failed true, it is not thrown.'],
  // playbooks
  ['getPlaybook', 'Get a playbook', 'read', named('playbook name'), anything],
  ['getPlaybooks', 'Get all playbooks', 'read', obj(), runnerList],
  ['runPlaybook', 'Run a playbook', 'long', run('playbook name', { hosts: hostsMember }), runOutcome],
  ['dryRunPlaybook', 'Run a playbook in check mode', 'long', run('playbook name', { hosts: hostsMember }), runOutcome],
  ['refreshPlaybooks', 'Rescan the playbooks', 'run', nothing(), runnerList],
  // modules
  ['getModule', 'Get a module', 'read', named('module name'), anything],
  ['getModules', 'Get all modules', 'read', obj(), runnerList],
  ['runModule', 'Run a module', 'long', run('module name', { hosts: hostsMember }), runOutcome],
  ['refreshModules', 'Rescan the modules', 'run', nothing(), runnerList],
  ['getRunnerModule', 'Get a runner module', 'read', named('runner module name'), anything],
  ['getRunnerModules', 'Get all runner modules', 'read', obj(), runnerList],
  ['runRunnerModule', 'Run a runner module', 'long', run('runner module name'), runOutcome],
  ['refreshRunnerModules', 'Rescan the runner modules', 'run', nothing(), runnerList],
  // roles
  ['getRole', 'Get a role', 'read', named('role name'), anything],
  ['getRoles', 'Get all roles', 'read', obj(), runnerList],
  ['runRole', 'Run a role', 'long', run('role name', { hosts: hostsMember }), runOutcome],
  ['refreshRoles', 'Rescan the roles', 'run', nothing(), runnerList],
  // collections
  ['getCollections', 'Get all collections', 'read', obj(), runnerList],
  ['getCollectionModule', 'Get a module of a collection', 'read', inCollection('module name'), anything],
  ['getCollectionModules', 'Get the modules of a collection', 'read', obj({ collection: name('collection name') }, ['collection']), runnerList],
  ['getCollectionRole', 'Get a role of a collection', 'read', inCollection('role name'), anything],
  ['getCollectionRoles', 'Get the roles of a collection', 'read', obj({ collection: name('collection name') }, ['collection']), runnerList],
  ['runCollectionModule', 'Run a module of a collection', 'long', inCollection('module name', true), runOutcome],
  ['runCollectionRole', 'Run a role of a collection', 'long', inCollection('role name', true), runOutcome],
  ['refreshCollections', 'Rescan the collections', 'run', nothing(), runnerList],
  // scripts
  ['getScript', 'Get a script', 'read', named('script name'), anything],
  ['getScripts', 'Get all scripts', 'read', obj(), runnerList],
  ['runScript', 'Run a script', 'long', run('script name'), runOutcome],
  ['runScriptEnv', 'Run a script with optional environment variables', 'long', run('script name', { env: mapOf({ type: 'string' }, { description: 'environment variables' }) }), runOutcome],
  ['refreshScripts', 'Rescan the scripts', 'run', nothing(), runnerList],
  // infrastructure as code
  ['getIac', 'Get an infrastructure-as-code module', 'read', named('module name'), anything],
  ['getIacs', 'Get all infrastructure-as-code modules', 'read', obj(), runnerList],
  ['initIac', 'Initialise an infrastructure-as-code module', 'long', run('module name'), runOutcome],
  ['planIac', 'Plan an infrastructure-as-code module', 'long', run('module name'), runOutcome],
  ['applyIac', 'Apply an infrastructure-as-code module', 'long', run('module name'), runOutcome],
  ['destroyIac', 'Destroy the resources of an infrastructure-as-code module', 'long', run('module name'), runOutcome],
  // inventory and descriptor
  ['refreshInventory', 'Reload the device inventory', 'run', nothing(), deviceList, 'Reads the inventory file (NAP_GW_INVENTORY_FILE, JSON in the Ansible inventory layout) and creates or updates its devices.'],
  ['getPlatformJson', 'Get the descriptor file of the gateway', 'read', nothing(), anything],
];

const busOperations: OperationSpec[] = BUS_METHODS.map(([opName, summary, kind, body, response, notes]) => ({
  name: opName,
  summary,
  roles: ROLES_OF[kind],
  body,
  response,
  timeoutMs: TIMEOUT_OF[kind],
  notes: `Bus-only: a gateway method with no HTTP route; payload not shown by the spec.${notes === undefined ? '' : ` ${notes}`}`,
}));

const connectionOptions = embed(deviceConnectionOptionsSchema);
const netconfTarget = {
  host: name('inventory device name (its gw_host, gw_netconf_port and credentials are used) or an address'),
  connection_options: obj(
    {
      port: int({ minimum: 1, maximum: 65535, description: 'default gw_netconf_port, else 830' }),
      username: str(),
      password: str({ description: 'never logged or returned' }),
      timeout: { type: 'number', exclusiveMinimum: 0, description: 'seconds per RPC, default 30' },
      hostkey_verify: { type: ['boolean', 'string'], description: 'true/"tofu", "strict", false/"off"' },
    },
    [],
    { description: 'what the inventory device does not give, or overrides' },
  ),
};
const netconfResult = obj({ status: str(), host: str(), data: str({ description: 'XML' }), reply: str({ description: 'whole rpc-reply XML' }) }, ['status', 'host']);
const sshTarget = { host: name('inventory device name or address'), connection_options: connectionOptions };

/**
 * Operations of the `gateway-devices` service: the device gateway (`/gw/*`), its methods with no
 * HTTP route, and the configuration manager (`/configuration_manager/*`).
 */
export const GATEWAY_DEVICES_OPERATIONS = defineOperations('gateway-devices', [
  {
    name: 'createInventoryDevice',
    summary: 'Create an inventory device, or update it when it exists',
    http: { method: 'POST', path: '/gw/createInventoryDevice' },
    roles: ROLE_SETS.write,
    body: obj({ name: name('device name'), variables, groups: strings({ description: 'inventory groups; replace the device groups when given' }) }, ['name']),
    response: obj({ name: str(), variables: anyObject('secrets masked'), groups: strings(), created: { type: 'boolean', description: 'false when an existing device was updated' } }, ['name', 'variables', 'groups', 'created']),
    notes:
      'The spec gives createInventoryDevice and updateInventoryDevice the same route; it is one route that creates the device ' +
      'or updates it when the name exists (given variables are merged in, null removes one, a masked secret "********" keeps the stored one). ' +
      'updateInventoryDevice is kept as a bus-only operation.',
  },
  {
    name: 'updateInventoryDevice',
    summary: 'Update an inventory device',
    roles: ROLE_SETS.write,
    body: obj({ name: name('device name'), variables: anyObject('device variables to set; null removes one'), groups: strings() }, ['name']),
    response: deviceView,
    notes: 'Bus-only: the spec routes it to POST /gw/createInventoryDevice, which createInventoryDevice serves as create-or-update.',
  },
  {
    name: 'deleteInventoryDevice',
    summary: 'Delete an inventory device',
    http: { method: 'DELETE', path: '/gw/deleteInventoryDevice' },
    roles: ROLE_SETS.write,
    body: device(),
    response: acknowledgement(),
    notes: 'The route has no path parameter; the device name travels in a JSON body.',
  },
  {
    name: 'getInventoryDevice',
    summary: 'Get an inventory device',
    http: { method: 'POST', path: '/gw/getInventoryDevice' },
    roles: ROLE_SETS.read,
    body: device(),
    response: deviceView,
  },
  {
    name: 'getInventoryDevices',
    summary: 'List inventory devices',
    http: { method: 'POST', path: '/gw/getInventoryDevices' },
    roles: ROLE_SETS.read,
    body: obj({ filter, ...listPage, sort: embed(deviceSortSchema) }),
    response: pageOf(embed(inventoryDeviceSchema)),
    notes: 'Filter values are data, never operators: allowed members are name (substring), group, and non-secret variables (exact value).',
  },
  {
    name: 'getInventoryGroups',
    summary: 'List groups of the inventory',
    http: { method: 'POST', path: '/gw/getInventoryGroups' },
    roles: ROLE_SETS.read,
    body: obj({ ...listPage }),
    response: resultsOf(obj({ name: str(), description: str(), devices: strings() }, ['name', 'devices'])),
    notes: 'Groups named by devices (groups) and device groups (createDeviceGroup), with their member devices.',
  },
  {
    name: 'netconfExecRpc',
    summary: 'Execute proprietary operations with NETCONF',
    http: { method: 'POST', path: '/gw/netconf/exec_rpc/execute' },
    roles: ROLE_SETS.run,
    body: obj({ ...netconfTarget, rpc: name('RPC XML: the operation inside <rpc>, or a whole <rpc> element') }, ['host', 'rpc']),
    response: netconfResult,
    timeoutMs: TIMEOUTS_MS.device,
    notes: 'An <rpc-error> answers 502 DEVICE_COMMAND_FAILED with every error in details.errors.',
  },
  {
    name: 'netconfGetConfig',
    summary: 'Retrieve configuration with NETCONF',
    http: { method: 'POST', path: '/gw/netconf/get_config/execute' },
    roles: ROLE_SETS.run,
    body: obj(
      {
        ...netconfTarget,
        source: { type: 'string', enum: ['running', 'candidate', 'startup'], default: 'running' },
        filter: str({ description: 'subtree filter XML, or an XPath expression' }),
      },
      ['host'],
    ),
    response: netconfResult,
    timeoutMs: TIMEOUTS_MS.device,
  },
  {
    name: 'netconfSetConfig',
    summary: 'Configure a device with NETCONF',
    http: { method: 'POST', path: '/gw/netconf/set_config/execute' },
    roles: ROLE_SETS.run,
    body: obj(
      {
        ...netconfTarget,
        config: name('configuration XML, with or without <config>'),
        target: { type: 'string', enum: ['running', 'candidate'], description: 'candidate when the agent has it, else running' },
        default_operation: { type: 'string', enum: ['merge', 'replace', 'none'] },
        lock: bool({ default: false }),
        commit: bool({ description: 'default true for the candidate' }),
      },
      ['host', 'config'],
    ),
    response: netconfResult,
    timeoutMs: TIMEOUTS_MS.device,
  },
  {
    name: 'sshSendCommandExec',
    summary: 'Transactional send_command',
    http: { method: 'POST', path: '/gw/sshSendCommandExec' },
    roles: ROLE_SETS.run,
    body: obj({ ...sshTarget, command_string: name('one command (netmiko)'), commands: strings({ minItems: 1, description: 'several commands, one session' }), ...sendCommandParameters }, ['host'], {
      anyOf: [{ required: ['command_string'] }, { required: ['commands'] }],
    }),
    response: embed(sshSendCommandResultSchema),
    timeoutMs: TIMEOUTS_MS.device,
    notes:
      'Accepts every parameter of netmiko send_command with its default. All commands run in one session; the first command the device ' +
      'reports an error for stops the transaction with 502 DEVICE_COMMAND_FAILED (details hold the outputs so far).',
  },
  {
    name: 'sshSendConfigSet',
    summary: 'send_config_set',
    http: { method: 'POST', path: '/gw/sshSendConfigSet' },
    roles: ROLE_SETS.run,
    body: obj({ ...sshTarget, config_commands: { anyOf: [strings({ minItems: 1 }), name()], description: 'configuration commands' }, ...sendConfigSetParameters }, ['host', 'config_commands']),
    response: embed(sshSendCommandResultSchema),
    timeoutMs: TIMEOUTS_MS.device,
    notes: 'Accepts every parameter of netmiko send_config_set with its default; result is { output, errors, failed }.',
  },
  {
    name: 'sendRequest',
    summary: 'Send an HTTP/1.1 request to an inventory device',
    http: { method: 'POST', path: '/gw/http_requests/request/execute' },
    roles: ROLE_SETS.run,
    body: embed(sendRequestBodySchema),
    response: embed(sendRequestResultSchema),
    timeoutMs: TIMEOUTS_MS.device,
    notes: 'Only inventory devices with gw_http_base_url are targets; the device answer (any status) is returned as is.',
  },
  // operation 11
  {
    name: 'sshSendCommand',
    summary: 'SSH send_command wrapper',
    http: { method: 'POST', path: '/gw/ssh/send_command' },
    roles: ['admin'],
    body: sshSendCommandBodySchema,
    response: sshSendCommandResultSchema,
    timeoutMs: TIMEOUTS_MS.device,
    notes:
      'connection_options.port defaults to 22 (filled in by validation). host is an address or an inventory device name; the device fills ' +
      'what connection_options leaves out (its gw_port is used when port is the default 22). result is one { command, output } per command.',
  },
  // operation 12
  {
    name: 'searchDeviceTemplates',
    summary: 'Search device templates',
    http: { method: 'POST', path: '/configuration_manager/templates/search' },
    roles: ['admin', 'apiread'],
    body: searchDeviceTemplatesBodySchema,
    response: deviceTemplateSearchResultSchema,
    notes: 'options defines no members in the spec: any object is accepted (an empty one included); skip and limit are honoured when numbers, other members ignored.',
  },
  // additions: device templates of the configuration manager
  {
    name: 'createDeviceTemplate',
    summary: 'Create a device template',
    http: { method: 'POST', path: '/configuration_manager/templates' },
    roles: ROLE_SETS.write,
    body: deviceTemplateInputSchema,
    response: deviceTemplateSchema,
    status: 201,
    addition: true,
  },
  {
    name: 'getDeviceTemplate',
    summary: 'Get a device template',
    http: { method: 'GET', path: '/configuration_manager/templates/:id' },
    roles: ROLE_SETS.read,
    response: deviceTemplateSchema,
    addition: true,
  },
  {
    name: 'updateDeviceTemplate',
    summary: 'Replace a device template',
    http: { method: 'PUT', path: '/configuration_manager/templates/:id' },
    roles: ROLE_SETS.write,
    body: deviceTemplateInputSchema,
    response: deviceTemplateSchema,
    addition: true,
  },
  {
    name: 'deleteDeviceTemplate',
    summary: 'Delete a device template',
    http: { method: 'DELETE', path: '/configuration_manager/templates/:id' },
    roles: ROLE_SETS.write,
    response: acknowledgement(),
    addition: true,
  },
  {
    name: 'renderDeviceTemplate',
    summary: 'Render a device template with variables',
    http: { method: 'POST', path: '/configuration_manager/templates/:id/render' },
    roles: ROLE_SETS.read,
    body: obj({ variables: anyObject('placeholder values; they override the template defaults') }, ['variables']),
    response: obj({ rendered: str({ description: 'the template text with placeholders replaced' }) }, ['rendered']),
    addition: true,
    notes:
      'nunjucks, autoescape off. Strict: a placeholder that would print an undefined value is a 422 DEVICE_TEMPLATE_RENDER_FAILED naming it; ' +
      'undefined names in conditions and the default filter are allowed.',
  },
  // additions: configuration backups
  {
    name: 'getConfigBackups',
    summary: 'List the configuration backups of a device',
    roles: ROLE_SETS.read,
    body: deviceWith({ ...listPage, withConfig: bool({ default: false, description: 'include the configuration text' }) }, []),
    response: resultsOf(embed(configBackupSchema)),
    addition: true,
    notes: 'Bus-only, beyond the spec: backups are taken by getConfig (backup true) and before setConfig, loadConfig and restoreConfig; newest first.',
  },
  ...busOperations,
]);
