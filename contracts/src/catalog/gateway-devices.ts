import { ROLE_SETS } from '../roles';
import type { Role } from '../roles';
import { acknowledgement, anyObject, embed, int, mapOf, name, obj, resultsOf, str, strings } from '../schemas/common';
import {
  deviceTemplateInputSchema,
  deviceTemplateSchema,
  deviceTemplateSearchResultSchema,
  searchDeviceTemplatesBodySchema,
} from '../schemas/device-template';
import { sshConnectionOptionsSchema, sshSendCommandBodySchema, sshSendCommandResultSchema } from '../schemas/ssh';
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
  return obj({ name: name(what), args: anyObject('arguments, by name'), ...extra }, ['name']);
}

function inCollection(what: string, runnable = false): JsonSchema {
  return obj(
    { collection: name('collection name, namespace.collection'), name: name(what), ...(runnable ? { args: anyObject('arguments, by name') } : {}) },
    ['collection', 'name'],
  );
}

function nothing(): JsonSchema {
  return { type: 'object', properties: {}, additionalProperties: false };
}

const anything = anyObject();
const list = resultsOf({ type: 'object' });
const runOutcome = obj({
  status: str({ description: 'success or error' }),
  stdout: str(),
  stderr: str(),
  result: { description: 'structured result, when the runner gives one' },
});

type Kind = 'read' | 'write' | 'run' | 'long';
const ROLES_OF: Record<Kind, readonly Role[]> = { read: ROLE_SETS.read, write: ROLE_SETS.write, run: ROLE_SETS.run, long: ROLE_SETS.run };
const TIMEOUT_OF: Record<Kind, number> = { read: TIMEOUTS_MS.default, write: TIMEOUTS_MS.default, run: TIMEOUTS_MS.device, long: TIMEOUTS_MS.long };

/** A gateway method with no HTTP route: `[name, summary, kind, body, response]`. */
type BusMethod = readonly [string, string, Kind, JsonSchema, JsonSchema];

const DEVICE_VARS = obj(
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
  { description: 'device variables, mapped to gateway variables as the spec lists' },
);

/** The gateway methods the spec lists without an HTTP route (section "Gateway operations"). */
const BUS_METHODS: readonly BusMethod[] = [
  // devices
  ['createDevice', 'Create a device, mapping deviceVars to gateway variables', 'write', deviceWith({ deviceVars: DEVICE_VARS }, ['deviceVars']), anything],
  ['createDeviceRaw', 'Create a device with gateway variables as given', 'write', deviceWith({ variables: anyObject('gateway variables, unchanged') }, ['variables']), anything],
  ['updateDevice', 'Update the variables of a device', 'write', deviceWith({ variables: anyObject('variables to set') }, ['variables']), anything],
  ['deleteDevice', 'Delete a device', 'write', device(), acknowledgement()],
  ['getDevice', 'Get a device', 'read', device(), anything],
  ['getDevices', 'Get all devices', 'read', obj({ skip: int({ minimum: 0 }), limit: int({ minimum: 0 }) }), list],
  ['getDevicesFiltered', 'Get devices filtered by criteria', 'read', obj({ filter: anyObject('variable name to value'), skip: int({ minimum: 0 }), limit: int({ minimum: 0 }) }, ['filter']), list],
  ['getDeviceDetailsRaw', 'Get the raw details of a device', 'read', device(), anything],
  ['getDevicesDetailsRaw', 'Get the raw details of devices', 'read', obj({ names: strings({ description: 'device names; all devices when absent' }) }), list],
  ['getDeviceHealth', 'Get memory and cpu utilization of a device', 'run', device(), obj({ memory: anything, cpu: anything })],
  ['getDeviceInfo', 'Get type and mac addresses of a device', 'run', device(), obj({ type: str(), macAddresses: strings() })],
  ['connectDevice', 'Connect to a device and report its status', 'run', device(), obj({ name: str(), connected: { type: 'boolean' } })],
  ['isAlive', 'Report whether a device answers', 'run', device(), obj({ name: str(), alive: { type: 'boolean' } }, ['alive'])],
  ['getOperationalData', 'Get operational data of a device', 'run', deviceWith({ filter: str({ description: 'what to read, device-specific' }) }, []), anything],
  // device groups
  ['createDeviceGroup', 'Create a device group', 'write', obj({ name: name('group name'), description: str(), devices: strings() }, ['name']), anything],
  ['updateDeviceGroup', 'Update a device group', 'write', obj({ name: name('group name'), description: str(), devices: strings() }, ['name']), anything],
  ['deleteDeviceGroup', 'Delete a device group', 'write', named('group name'), acknowledgement()],
  ['getDeviceGroup', 'Get a device group', 'read', named('group name'), anything],
  ['getDeviceGroups', 'Get all device groups', 'read', obj(), list],
  ['addDeviceToDeviceGroup', 'Add devices to a device group', 'write', obj({ group: name('group name'), devices: strings({ minItems: 1 }) }, ['group', 'devices']), anything],
  ['deleteDeviceFromDeviceGroup', 'Remove devices from a device group', 'write', obj({ group: name('group name'), devices: strings({ minItems: 1 }) }, ['group', 'devices']), anything],
  // configuration
  ['getConfig', 'Get the configuration of a device', 'run', device(), obj({ name: str(), config: str() })],
  ['setConfig', 'Apply configuration lines to a device', 'run', deviceWith({ config: strings({ minItems: 1, description: 'configuration lines' }) }, ['config']), runOutcome],
  ['loadConfig', 'Load raw configuration lines onto a device', 'run', deviceWith({ config: str({ description: 'raw configuration text' }) }, ['config']), runOutcome],
  ['restoreConfig', 'Restore a configuration onto a device', 'run', deviceWith({ config: str({ description: 'configuration text to restore' }) }, ['config']), runOutcome],
  ['runCommand', 'Run a command on a device', 'run', deviceWith({ command: name('command text') }, ['command']), runOutcome],
  // playbooks
  ['getPlaybook', 'Get a playbook', 'read', named('playbook name'), anything],
  ['getPlaybooks', 'Get all playbooks', 'read', obj(), list],
  ['runPlaybook', 'Run a playbook', 'long', run('playbook name', { hosts: strings() }), runOutcome],
  ['dryRunPlaybook', 'Run a playbook in check mode', 'long', run('playbook name', { hosts: strings() }), runOutcome],
  ['refreshPlaybooks', 'Rescan the playbooks', 'run', nothing(), list],
  // modules
  ['getModule', 'Get a module', 'read', named('module name'), anything],
  ['getModules', 'Get all modules', 'read', obj(), list],
  ['runModule', 'Run a module', 'long', run('module name', { hosts: strings() }), runOutcome],
  ['refreshModules', 'Rescan the modules', 'run', nothing(), list],
  ['getRunnerModule', 'Get a runner module', 'read', named('runner module name'), anything],
  ['getRunnerModules', 'Get all runner modules', 'read', obj(), list],
  ['runRunnerModule', 'Run a runner module', 'long', run('runner module name'), runOutcome],
  ['refreshRunnerModules', 'Rescan the runner modules', 'run', nothing(), list],
  // roles
  ['getRole', 'Get a role', 'read', named('role name'), anything],
  ['getRoles', 'Get all roles', 'read', obj(), list],
  ['runRole', 'Run a role', 'long', run('role name', { hosts: strings() }), runOutcome],
  ['refreshRoles', 'Rescan the roles', 'run', nothing(), list],
  // collections
  ['getCollections', 'Get all collections', 'read', obj(), list],
  ['getCollectionModule', 'Get a module of a collection', 'read', inCollection('module name'), anything],
  ['getCollectionModules', 'Get the modules of a collection', 'read', obj({ collection: name('collection name') }, ['collection']), list],
  ['getCollectionRole', 'Get a role of a collection', 'read', inCollection('role name'), anything],
  ['getCollectionRoles', 'Get the roles of a collection', 'read', obj({ collection: name('collection name') }, ['collection']), list],
  ['runCollectionModule', 'Run a module of a collection', 'long', inCollection('module name', true), runOutcome],
  ['runCollectionRole', 'Run a role of a collection', 'long', inCollection('role name', true), runOutcome],
  ['refreshCollections', 'Rescan the collections', 'run', nothing(), list],
  // scripts
  ['getScript', 'Get a script', 'read', named('script name'), anything],
  ['getScripts', 'Get all scripts', 'read', obj(), list],
  ['runScript', 'Run a script', 'long', run('script name'), runOutcome],
  ['runScriptEnv', 'Run a script with optional environment variables', 'long', run('script name', { env: mapOf({ type: 'string' }, { description: 'environment variables' }) }), runOutcome],
  ['refreshScripts', 'Rescan the scripts', 'run', nothing(), list],
  // infrastructure as code
  ['getIac', 'Get an infrastructure-as-code module', 'read', named('module name'), anything],
  ['getIacs', 'Get all infrastructure-as-code modules', 'read', obj(), list],
  ['initIac', 'Initialise an infrastructure-as-code module', 'long', run('module name'), runOutcome],
  ['planIac', 'Plan an infrastructure-as-code module', 'long', run('module name'), runOutcome],
  ['applyIac', 'Apply an infrastructure-as-code module', 'long', run('module name'), runOutcome],
  ['destroyIac', 'Destroy the resources of an infrastructure-as-code module', 'long', run('module name'), runOutcome],
  // inventory and descriptor
  ['refreshInventory', 'Reload the device inventory', 'run', nothing(), list],
  ['getPlatformJson', 'Get the descriptor file of the gateway', 'read', nothing(), anything],
];

const busOperations: OperationSpec[] = BUS_METHODS.map(([opName, summary, kind, body, response]) => ({
  name: opName,
  summary,
  roles: ROLES_OF[kind],
  body,
  response,
  timeoutMs: TIMEOUT_OF[kind],
  notes: 'Bus-only: a gateway method with no HTTP route; payload not shown by the spec.',
}));

const connectionOptions = embed(sshConnectionOptionsSchema);
const netconfTarget = {
  host: name('inventory device name or address'),
  connection_options: anyObject('NETCONF connection options: port (830 by default), username, password, hostkey_verify'),
};
const anyResult = anyObject('result from the device');

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
    body: obj(
      { name: name('device name'), variables: anyObject('device variables'), groups: strings({ description: 'inventory groups' }) },
      ['name'],
    ),
    response: obj({ name: str(), variables: anyObject(), created: { type: 'boolean', description: 'false when an existing device was updated' } }, ['name']),
    notes:
      'The spec gives createInventoryDevice and updateInventoryDevice the same route; it is one route that creates the device ' +
      'or updates it when the name exists. updateInventoryDevice is kept as a bus-only operation.',
  },
  {
    name: 'updateInventoryDevice',
    summary: 'Update an inventory device',
    roles: ROLE_SETS.write,
    body: obj({ name: name('device name'), variables: anyObject('device variables to set'), groups: strings() }, ['name']),
    response: obj({ name: str(), variables: anyObject() }, ['name']),
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
    response: obj({ name: str(), variables: anyObject(), groups: strings() }, ['name']),
  },
  {
    name: 'getInventoryDevices',
    summary: 'List inventory devices',
    http: { method: 'POST', path: '/gw/getInventoryDevices' },
    roles: ROLE_SETS.read,
    body: obj({
      filter: anyObject('variable name to value'),
      group: str({ description: 'only devices of this inventory group' }),
      skip: int({ minimum: 0 }),
      limit: int({ minimum: 0 }),
    }),
    response: list,
  },
  {
    name: 'getInventoryGroups',
    summary: 'List groups of the inventory',
    http: { method: 'POST', path: '/gw/getInventoryGroups' },
    roles: ROLE_SETS.read,
    body: obj({ skip: int({ minimum: 0 }), limit: int({ minimum: 0 }) }),
    response: list,
  },
  {
    name: 'netconfExecRpc',
    summary: 'Execute proprietary operations with NETCONF',
    http: { method: 'POST', path: '/gw/netconf/exec_rpc/execute' },
    roles: ROLE_SETS.run,
    body: obj({ ...netconfTarget, rpc: name('RPC XML') }, ['host', 'rpc']),
    response: anyResult,
    timeoutMs: TIMEOUTS_MS.device,
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
        filter: str({ description: 'subtree filter XML' }),
      },
      ['host'],
    ),
    response: anyResult,
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
        config: name('configuration XML'),
        target: { type: 'string', enum: ['running', 'candidate'], default: 'running' },
      },
      ['host', 'config'],
    ),
    response: anyResult,
    timeoutMs: TIMEOUTS_MS.device,
  },
  {
    name: 'sshSendCommandExec',
    summary: 'Transactional send_command',
    http: { method: 'POST', path: '/gw/sshSendCommandExec' },
    roles: ROLE_SETS.run,
    body: obj(
      { host: name('device host name or address'), commands: strings({ minItems: 1 }), connection_options: connectionOptions },
      ['host', 'commands', 'connection_options'],
    ),
    response: embed(sshSendCommandResultSchema),
    timeoutMs: TIMEOUTS_MS.device,
    notes: 'Accepts all parameters of send_command beside host, commands and connection_options (expect_string, read_timeout, …).',
  },
  {
    name: 'sshSendConfigSet',
    summary: 'send_config_set',
    http: { method: 'POST', path: '/gw/sshSendConfigSet' },
    roles: ROLE_SETS.run,
    body: obj(
      { host: name('device host name or address'), config_commands: strings({ minItems: 1 }), connection_options: connectionOptions },
      ['host', 'config_commands', 'connection_options'],
    ),
    response: embed(sshSendCommandResultSchema),
    timeoutMs: TIMEOUTS_MS.device,
    notes: 'Accepts all parameters of send_config_set beside host, config_commands and connection_options (exit_config_mode, …).',
  },
  {
    name: 'sendRequest',
    summary: 'Send an HTTP/1.1 request to an inventory device',
    http: { method: 'POST', path: '/gw/http_requests/request/execute' },
    roles: ROLE_SETS.run,
    body: obj(
      {
        host: name('inventory device name'),
        method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] },
        url: name('path on the device, or an absolute URL on its address'),
        headers: mapOf({ type: 'string' }),
        params: mapOf({ type: 'string' }, { description: 'query parameters' }),
        data: { description: 'request body: a string, or JSON' },
        timeout: { type: 'number', minimum: 0, description: 'seconds' },
        verify: { type: 'boolean', default: true, description: 'verify the TLS certificate' },
      },
      ['host', 'method', 'url'],
    ),
    response: obj({ status_code: int(), headers: mapOf({ type: 'string' }), text: str(), json: {} }, ['status_code']),
    timeoutMs: TIMEOUTS_MS.device,
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
    notes: 'connection_options.port defaults to 22 (filled in by validation).',
  },
  // operation 12
  {
    name: 'searchDeviceTemplates',
    summary: 'Search device templates',
    http: { method: 'POST', path: '/configuration_manager/templates/search' },
    roles: ['admin', 'apiread'],
    body: searchDeviceTemplatesBodySchema,
    response: deviceTemplateSearchResultSchema,
    notes: 'options defines no members in the spec: any object is accepted (an empty one included) and unknown members are ignored.',
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
    notes: 'A missing placeholder value is a 422 naming the placeholder.',
  },
  ...busOperations,
]);

