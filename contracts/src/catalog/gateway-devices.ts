import type { TProperties, TSchema } from '@sinclair/typebox';
import { ROLE_SETS } from '../roles';
import type { Role } from '../roles';
import {
  acknowledgement,
  anyObject,
  arr,
  bool,
  closed,
  describedPattern,
  embed,
  int,
  mapOf,
  name,
  num,
  obj,
  oneOf,
  printableName,
  resultsOf,
  str,
  strings,
  Type,
  withOneOf,
} from '../schemas/common';
import {
  deviceTemplateInputSchema,
  deviceTemplateSchema,
  deviceTemplateSearchResultSchema,
  searchDeviceTemplatesBodySchema,
} from '../schemas/device-template';
import { listQuerySchema } from '../schemas/query';
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
  runCommandBody,
  runCommandResultSchema,
  runOutcomeSchema,
  sendCommandParameters,
  sendConfigSetParameters,
  sendRequestBodySchema,
  sendRequestResultSchema,
} from '../schemas/devices';
import { sshSendCommandBodySchema, sshSendCommandResultSchema } from '../schemas/ssh';
import { defineOperations, TIMEOUTS_MS } from './define';

function device() {
  return obj({ name: name('inventory device name') }, ['name']);
}

function deviceWith<P extends TProperties, const R extends readonly (keyof P & string)[]>(properties: P, required: R) {
  return obj({ name: name('inventory device name'), ...properties }, ['name', ...required]);
}

function named(what: string) {
  return obj({ name: name(what) }, ['name']);
}

function run(what: string) {
  return obj({ name: name(what), ...runBodyMembers }, ['name']);
}

function runOnHosts(what: string) {
  return obj({ name: name(what), ...runBodyMembers, hosts: hostsMember }, ['name']);
}

function inCollection(what: string) {
  return obj({ collection: name('collection name, namespace.collection'), name: name(what) }, ['collection', 'name']);
}

function runInCollection(what: string) {
  return obj({ collection: name('collection name, namespace.collection'), name: name(what), ...runBodyMembers, hosts: hostsMember }, [
    'collection',
    'name',
  ]);
}

/** `host:port`, `[IPv6 address]:port`: an SSH endpoint as the known hosts key it (URL-encode the brackets and colons of IPv6). */
const hostPortParam = str({
  pattern: describedPattern(
    '^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9_.-]+):[0-9]{1,5}$',
    'host:port, or [IPv6 address]:port, such as core-1.example.net:22',
  ),
  maxLength: 300,
  description: 'the SSH endpoint: host:port, or [IPv6 address]:port',
});
/** An OpenSSH SHA-256 fingerprint, as `ssh-keygen -l` prints it. */
const fingerprintSchema = str({
  pattern: describedPattern(
    '^SHA256:[A-Za-z0-9+/]{43}=?$',
    'a SHA-256 fingerprint as `ssh-keygen -lf` prints it, SHA256: and 43 characters of base64, such as SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8',
  ),
  description: "the key's SHA-256 fingerprint as `ssh-keygen -l` prints it: SHA256: and 43 characters of base64",
});
const knownHostSchema = obj(
  {
    hostPort: str({ description: 'the SSH endpoint: host:port, or [IPv6 address]:port' }),
    fingerprint: str({ description: 'the SHA-256 fingerprint of the trusted key (SHA256:…)' }),
    created: str({ description: 'when the key was trusted (ISO 8601)' }),
  },
  ['hostPort', 'fingerprint', 'created'],
);

const anything = anyObject();
const list = resultsOf(anyObject());
const runOutcome = embed(runOutcomeSchema);
const deviceView = embed(inventoryDeviceSchema);
const deviceList = resultsOf(embed(inventoryDeviceSchema));
const variables = embed(deviceVariablesSchema);
const filter = embed(deviceFilterSchema);
const runnerEntry = obj({ name: str(), path: str({ description: 'relative to the configured directory' }), description: str() }, ['name']);
const runnerList = resultsOf(runnerEntry);

type Kind = 'read' | 'write' | 'run' | 'long';
const ROLES_OF: Record<Kind, readonly Role[]> = { read: ROLE_SETS.read, write: ROLE_SETS.write, run: ROLE_SETS.run, long: ROLE_SETS.run };
const TIMEOUT_OF: Record<Kind, number> = {
  read: TIMEOUTS_MS.default,
  write: TIMEOUTS_MS.default,
  run: TIMEOUTS_MS.device,
  long: TIMEOUTS_MS.long,
};

/** A gateway method with no HTTP route (section "Gateway operations" of the spec). */
function bus<const N extends string, B extends TSchema, R extends TSchema>(
  opName: N,
  summary: string,
  kind: Kind,
  body: B,
  response: R,
  notes?: string,
) {
  return {
    name: opName,
    summary,
    roles: ROLES_OF[kind],
    body,
    response,
    timeoutMs: TIMEOUT_OF[kind],
    notes: `Bus-only: a gateway method with no HTTP route; payload not shown by the spec.${notes === undefined ? '' : ` ${notes}`}`,
  };
}

const DEVICE_VARS = closed(
  {
    'device-type': str({ description: 'to gw_connection' }),
    ipaddress: str({ description: 'to gw_host' }),
    port: int({ minimum: 1, maximum: 65535, description: 'to gw_port' }),
    ostype: str({ description: 'to gw_network_os' }),
    gwOS: str({ description: 'to gw_os' }),
    user: str({ description: 'to gw_user' }),
    sshKey: str({ description: 'to gw_ssh_private_key_file' }),
    hostKeyChecking: booleanOrString('to host_key_checking'),
    provider: str({ description: 'to gw_provider' }),
    password: str({ description: 'to gw_password; never returned' }),
    become: booleanOrString('to gw_become'),
    become_method: str({ description: 'to gw_become_method' }),
    become_pass: str({ description: 'to gw_become_pass; never returned' }),
  },
  [],
  { description: 'device variables, mapped to gateway variables exactly as the spec lists; no other member' },
);

/** `{ type: ['boolean', 'string'] }`: a flag given as a boolean or as a word ("tofu", "strict", "off"). */
function booleanOrString(description: string) {
  return Type.Unsafe<boolean | string>({ type: ['boolean', 'string'], description });
}

const listPage = { skip: int({ minimum: 0 }), limit: int({ minimum: 0, description: '0 or absent: no limit' }) };
const sshDeviceNote =
  'Sessions go through the process-wide session limiter (gw_session_limit per device, default 2). ' +
  'A private key (gw_ssh_private_key, gw_ssh_private_key_file) that cannot be read or used: 422 DEVICE_CREDENTIALS_MISSING naming the variable.';

/** The gateway methods the spec lists without an HTTP route (section "Gateway operations"). */
const BUS_METHODS = [
  // devices
  bus(
    'createDevice',
    'Create a device, mapping deviceVars to gateway variables',
    'write',
    deviceWith({ deviceVars: DEVICE_VARS, groups: strings() }, ['deviceVars']),
    deviceView,
    'deviceVars map as the spec says: device-type→gw_connection, ipaddress→gw_host, port→gw_port, ostype→gw_network_os, gwOS→gw_os, user→gw_user, sshKey→gw_ssh_private_key_file, hostKeyChecking→host_key_checking, provider→gw_provider, password→gw_password, become→gw_become, become_method→gw_become_method, become_pass→gw_become_pass. 409 DEVICE_ALREADY_EXISTS when the name exists.',
  ),
  bus(
    'createDeviceRaw',
    'Create a device with gateway variables as given',
    'write',
    deviceWith({ variables, groups: strings() }, ['variables']),
    deviceView,
    'Variables are stored unchanged (secrets sealed). 409 when the name exists.',
  ),
  bus(
    'updateDevice',
    'Update the variables of a device',
    'write',
    deviceWith({ variables: anyObject('variables to set; null removes one'), groups: strings() }, ['variables']),
    deviceView,
  ),
  bus('deleteDevice', 'Delete a device', 'write', device(), acknowledgement()),
  bus('getDevice', 'Get a device', 'read', device(), deviceView),
  bus('getDevices', 'Get all devices', 'read', obj({ ...listPage }), deviceList),
  bus(
    'getDevicesFiltered',
    'Get devices filtered by criteria',
    'read',
    obj({ filter, ...listPage, sort: embed(deviceSortSchema) }, ['filter']),
    deviceList,
  ),
  bus(
    'getDeviceDetailsRaw',
    'Get the raw details of a device',
    'read',
    device(),
    anything,
    'The stored record (secrets masked) with the trusted host key fingerprint.',
  ),
  bus(
    'getDevicesDetailsRaw',
    'Get the raw details of devices',
    'read',
    obj({ names: strings({ description: 'device names; all devices when absent' }) }),
    list,
  ),
  bus(
    'getDeviceHealth',
    'Get memory and cpu utilization of a device',
    'run',
    device(),
    obj({ name: str(), cpu: anything, memory: anything, outputs: arr(embed(commandOutputSchema)) }, ['name', 'cpu', 'memory']),
    sshDeviceNote,
  ),
  bus(
    'getDeviceInfo',
    'Get type and mac addresses of a device',
    'run',
    device(),
    obj({ name: str(), type: str(), macAddresses: strings(), outputs: arr(embed(commandOutputSchema)) }, ['name', 'type', 'macAddresses']),
    sshDeviceNote,
  ),
  bus(
    'connectDevice',
    'Connect to a device and report its status',
    'run',
    withOneOf(
      obj({
        name: name('inventory device name'),
        deviceName: name('the same, as workflow tasks of the Automation Gateway adapter name it'),
      }),
      ['name', 'deviceName'],
    ),
    obj({ name: str(), connected: bool(), prompt: str(), hostKeyFingerprint: str() }, ['name', 'connected']),
    'Connection failures answer their own error code (DEVICE_SSH_AUTH_FAILED, DEVICE_UNREACHABLE, …).',
  ),
  bus(
    'isAlive',
    'Report whether a device answers',
    'run',
    device(),
    obj({ name: str(), alive: bool(), code: str({ description: 'error code when not alive' }), message: str() }, ['alive']),
    'Never fails for a device that does not answer: alive false with the error code.',
  ),
  bus(
    'getOperationalData',
    'Get operational data of a device',
    'run',
    deviceWith(
      { filter: Type.Union([str(), strings()], { description: 'interfaces, routes, arp, neighbors, clock, version; all when absent' }) },
      [],
    ),
    obj({ name: str(), data: mapOf(str()) }, ['name', 'data']),
    sshDeviceNote,
  ),
  // device groups
  bus(
    'createDeviceGroup',
    'Create a device group',
    'write',
    obj({ name: printableName('group name'), description: str(), devices: strings() }, ['name']),
    anything,
  ),
  bus(
    'updateDeviceGroup',
    'Update a device group',
    'write',
    obj({ name: name('group name'), description: str(), devices: strings({ description: 'replaces the members when given' }) }, ['name']),
    anything,
  ),
  bus('deleteDeviceGroup', 'Delete a device group', 'write', named('group name'), acknowledgement()),
  bus('getDeviceGroup', 'Get a device group', 'read', named('group name'), anything),
  bus('getDeviceGroups', 'Get all device groups', 'read', obj({}), list),
  bus(
    'addDeviceToDeviceGroup',
    'Add devices to a device group',
    'write',
    withOneOf(
      obj(
        {
          group: name('group name'),
          devices: strings({ minItems: 1 }),
          deviceName: name('one device, as workflow tasks of the Automation Gateway adapter name it'),
        },
        ['group'],
      ),
      ['devices', 'deviceName'],
    ),
    anything,
  ),
  bus(
    'deleteDeviceFromDeviceGroup',
    'Remove devices from a device group',
    'write',
    obj({ group: name('group name'), devices: strings({ minItems: 1 }) }, ['group', 'devices']),
    anything,
  ),
  // configuration
  bus(
    'getConfig',
    'Get the configuration of a device',
    'run',
    deviceWith({ backup: bool({ default: false, description: 'also keep it as a backup' }) }, []),
    obj({ name: str(), config: str(), backupId: str() }, ['name', 'config']),
    sshDeviceNote,
  ),
  bus(
    'setConfig',
    'Apply configuration lines to a device',
    'run',
    deviceWith(
      { config: Type.Union([strings({ minItems: 1 }), str()], { description: 'configuration lines' }), ...sendConfigSetParameters },
      ['config'],
    ),
    embed(configChangeResultSchema),
    'A backup of the running configuration is kept before the change.',
  ),
  bus(
    'loadConfig',
    'Load raw configuration lines onto a device',
    'run',
    deviceWith({ config: str({ description: 'raw configuration text' }), commit: bool({ default: true, description: 'Junos: commit' }) }, [
      'config',
    ]),
    embed(configChangeResultSchema),
    'Comment lines (!, #), blank lines, "end" and show headers are dropped; the rest is sent in configuration mode. A backup is kept first.',
  ),
  bus(
    'restoreConfig',
    'Restore a configuration onto a device',
    'run',
    deviceWith(
      {
        backupId: str({ description: 'a backup of the device; the latest when neither backupId nor config is given' }),
        config: str({ description: 'configuration text to restore' }),
      },
      [],
    ),
    embed(configChangeResultSchema),
    'Merges the saved lines (lines added since are not removed). A backup of the current configuration is kept first.',
  ),
  bus(
    'runCommand',
    'Run a command on a device',
    'run',
    runCommandBody(),
    embed(runCommandResultSchema),
    'What the mop service runs commands through. response holds the raw output as a string; a device error line sets status error and failed true, it is not thrown.',
  ),
  // playbooks
  bus('getPlaybook', 'Get a playbook', 'read', named('playbook name'), anything),
  bus('getPlaybooks', 'Get all playbooks', 'read', obj({}), runnerList),
  bus('runPlaybook', 'Run a playbook', 'long', runOnHosts('playbook name'), runOutcome),
  bus('dryRunPlaybook', 'Run a playbook in check mode', 'long', runOnHosts('playbook name'), runOutcome),
  bus('refreshPlaybooks', 'Rescan the playbooks', 'run', closed({}), runnerList),
  // modules
  bus('getModule', 'Get a module', 'read', named('module name'), anything),
  bus('getModules', 'Get all modules', 'read', obj({}), runnerList),
  bus('runModule', 'Run a module', 'long', runOnHosts('module name'), runOutcome),
  bus('refreshModules', 'Rescan the modules', 'run', closed({}), runnerList),
  bus('getRunnerModule', 'Get a runner module', 'read', named('runner module name'), anything),
  bus('getRunnerModules', 'Get all runner modules', 'read', obj({}), runnerList),
  bus('runRunnerModule', 'Run a runner module', 'long', run('runner module name'), runOutcome),
  bus('refreshRunnerModules', 'Rescan the runner modules', 'run', closed({}), runnerList),
  // roles
  bus('getRole', 'Get a role', 'read', named('role name'), anything),
  bus('getRoles', 'Get all roles', 'read', obj({}), runnerList),
  bus('runRole', 'Run a role', 'long', runOnHosts('role name'), runOutcome),
  bus('refreshRoles', 'Rescan the roles', 'run', closed({}), runnerList),
  // collections
  bus('getCollections', 'Get all collections', 'read', obj({}), runnerList),
  bus('getCollectionModule', 'Get a module of a collection', 'read', inCollection('module name'), anything),
  bus(
    'getCollectionModules',
    'Get the modules of a collection',
    'read',
    obj({ collection: name('collection name') }, ['collection']),
    runnerList,
  ),
  bus('getCollectionRole', 'Get a role of a collection', 'read', inCollection('role name'), anything),
  bus(
    'getCollectionRoles',
    'Get the roles of a collection',
    'read',
    obj({ collection: name('collection name') }, ['collection']),
    runnerList,
  ),
  bus('runCollectionModule', 'Run a module of a collection', 'long', runInCollection('module name'), runOutcome),
  bus('runCollectionRole', 'Run a role of a collection', 'long', runInCollection('role name'), runOutcome),
  bus('refreshCollections', 'Rescan the collections', 'run', closed({}), runnerList),
  // scripts
  bus('getScript', 'Get a script', 'read', named('script name'), anything),
  bus('getScripts', 'Get all scripts', 'read', obj({}), runnerList),
  bus('runScript', 'Run a script', 'long', run('script name'), runOutcome),
  bus(
    'runScriptEnv',
    'Run a script with optional environment variables',
    'long',
    obj({ name: name('script name'), ...runBodyMembers, env: mapOf(str(), { description: 'environment variables' }) }, ['name']),
    runOutcome,
  ),
  bus('refreshScripts', 'Rescan the scripts', 'run', closed({}), runnerList),
  // infrastructure as code
  bus('getIac', 'Get an infrastructure-as-code module', 'read', named('module name'), anything),
  bus('getIacs', 'Get all infrastructure-as-code modules', 'read', obj({}), runnerList),
  bus('initIac', 'Initialise an infrastructure-as-code module', 'long', run('module name'), runOutcome),
  bus('planIac', 'Plan an infrastructure-as-code module', 'long', run('module name'), runOutcome),
  bus('applyIac', 'Apply an infrastructure-as-code module', 'long', run('module name'), runOutcome),
  bus('destroyIac', 'Destroy the resources of an infrastructure-as-code module', 'long', run('module name'), runOutcome),
  // inventory and descriptor
  bus(
    'refreshInventory',
    'Reload the device inventory',
    'run',
    closed({}),
    deviceList,
    'Reads the inventory file (NAP_GW_INVENTORY_FILE, JSON in the Ansible inventory layout) and creates or updates its devices.',
  ),
  bus('getPlatformJson', 'Get the descriptor file of the gateway', 'read', closed({}), anything),
] as const;

const connectionOptions = embed(deviceConnectionOptionsSchema);
const netconfTarget = {
  host: name('inventory device name (its gw_host, gw_netconf_port and credentials are used) or an address'),
  connection_options: obj(
    {
      port: int({ minimum: 1, maximum: 65535, description: 'default gw_netconf_port, else 830' }),
      username: str(),
      password: str({ description: 'never logged or returned' }),
      timeout: num({ exclusiveMinimum: 0, description: 'seconds per RPC, default 30' }),
      hostkey_verify: booleanOrString('true/"tofu", "strict", false/"off"'),
    },
    [],
    { description: 'what the inventory device does not give, or overrides' },
  ),
};
/** A page of inventory devices as `getInventoryDevices` answers it: every member always present. */
const inventoryPage = obj(
  {
    items: arr(embed(inventoryDeviceSchema)),
    total: int({ minimum: 0, description: 'number of documents matching the query' }),
    skip: int({ minimum: 0 }),
    limit: int({ minimum: 0 }),
  },
  ['items', 'total', 'skip', 'limit'],
);
const netconfResult = obj(
  {
    status: str(),
    host: str(),
    data: str({ description: 'XML' }),
    reply: str({ description: 'whole rpc-reply XML' }),
    source: str({ description: 'get_config: the datastore read (running, candidate, startup)' }),
    target: str({ description: 'set_config: the datastore edited (candidate when the device has one, else running)' }),
    committed: bool({ description: 'set_config: whether the candidate was committed' }),
  },
  ['status', 'host'],
);
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
    body: obj(
      {
        name: printableName('device name'),
        variables,
        groups: strings({ description: 'inventory groups; replace the device groups when given' }),
      },
      ['name'],
    ),
    response: obj(
      {
        name: str(),
        variables: anyObject('secrets masked'),
        groups: strings(),
        created: bool({ description: 'false when an existing device was updated' }),
      },
      ['name', 'variables', 'groups', 'created'],
    ),
    notes:
      'The spec gives createInventoryDevice and updateInventoryDevice the same route; it is one route that creates the device ' +
      'or updates it when the name exists (given variables are merged in, null removes one, a masked secret "********" keeps the stored one). ' +
      'Secrets nested in an object or array variable (gw_http_headers.Authorization, creds.password, list[0].secret) are sealed and answered ' +
      '"********" like top-level ones; a value sent back with them masked keeps them (matched by member name and array position), and a mask ' +
      'where no secret is stored is 400 naming the member. gw_http_headers must be an object of headers that can be sent (400 naming the header). ' +
      'updateInventoryDevice is kept as a bus-only operation.',
  },
  {
    name: 'updateInventoryDevice',
    summary: 'Update an inventory device',
    roles: ROLE_SETS.write,
    body: obj({ name: name('device name'), variables: anyObject('device variables to set; null removes one'), groups: strings() }, [
      'name',
    ]),
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
    safe: true,
    summary: 'Get an inventory device',
    http: { method: 'POST', path: '/gw/getInventoryDevice' },
    roles: ROLE_SETS.read,
    body: device(),
    response: deviceView,
  },
  {
    name: 'getInventoryDevices',
    safe: true,
    summary: 'List inventory devices',
    http: { method: 'POST', path: '/gw/getInventoryDevices' },
    roles: ROLE_SETS.read,
    body: obj({ filter, ...listPage, sort: embed(deviceSortSchema) }),
    response: inventoryPage,
    notes: 'Filter values are data, never operators: allowed members are name (substring), group, and non-secret variables (exact value).',
  },
  {
    name: 'getInventoryGroups',
    safe: true,
    summary: 'List groups of the inventory',
    http: { method: 'POST', path: '/gw/getInventoryGroups' },
    roles: ROLE_SETS.read,
    body: obj({ ...listPage }),
    response: resultsOf(obj({ name: str(), description: str(), devices: strings() }, ['name', 'devices'])),
    notes: 'Groups named by devices (groups) and device groups (createDeviceGroup), with their member devices.',
  },
  {
    name: 'netconfExecRpc',
    auditKind: 'device',
    auditName: 'host',
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
    auditKind: 'device',
    auditName: 'host',
    summary: 'Retrieve configuration with NETCONF',
    http: { method: 'POST', path: '/gw/netconf/get_config/execute' },
    roles: ROLE_SETS.run,
    body: obj(
      {
        ...netconfTarget,
        source: oneOf(['running', 'candidate', 'startup'], { default: 'running' }),
        filter: str({ description: 'subtree filter XML, or an XPath expression' }),
      },
      ['host'],
    ),
    response: netconfResult,
    timeoutMs: TIMEOUTS_MS.device,
  },
  {
    name: 'netconfSetConfig',
    auditKind: 'device',
    auditName: 'host',
    summary: 'Configure a device with NETCONF',
    http: { method: 'POST', path: '/gw/netconf/set_config/execute' },
    roles: ROLE_SETS.run,
    body: obj(
      {
        ...netconfTarget,
        config: name('configuration XML, with or without <config>'),
        target: oneOf(['running', 'candidate'], { description: 'candidate when the agent has it, else running' }),
        default_operation: oneOf(['merge', 'replace', 'none']),
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
    auditKind: 'device',
    auditName: 'host',
    summary: 'Transactional send_command',
    http: { method: 'POST', path: '/gw/sshSendCommandExec' },
    roles: ROLE_SETS.run,
    body: obj(
      {
        ...sshTarget,
        command_string: name('one command (netmiko)'),
        commands: strings({ minItems: 1, description: 'several commands, one session' }),
        ...sendCommandParameters,
      },
      ['host'],
      {
        anyOf: [{ required: ['command_string'] }, { required: ['commands'] }],
      },
    ),
    response: embed(sshSendCommandResultSchema),
    timeoutMs: TIMEOUTS_MS.device,
    notes:
      'Accepts every parameter of netmiko send_command with its default. All commands run in one session; the first command the device ' +
      'reports an error for stops the transaction with 502 DEVICE_COMMAND_FAILED (details hold the outputs so far).',
  },
  {
    name: 'sshSendConfigSet',
    auditKind: 'device',
    auditName: 'host',
    summary: 'send_config_set',
    http: { method: 'POST', path: '/gw/sshSendConfigSet' },
    roles: ROLE_SETS.run,
    body: obj(
      {
        ...sshTarget,
        config_commands: Type.Union([strings({ minItems: 1 }), name()], { description: 'configuration commands' }),
        ...sendConfigSetParameters,
      },
      ['host', 'config_commands'],
    ),
    response: embed(sshSendCommandResultSchema),
    timeoutMs: TIMEOUTS_MS.device,
    notes: 'Accepts every parameter of netmiko send_config_set with its default; result is { output, errors, failed }.',
  },
  {
    name: 'sendRequest',
    auditKind: 'device',
    auditName: 'host',
    summary: 'Send an HTTP/1.1 request to an inventory device',
    http: { method: 'POST', path: '/gw/http_requests/request/execute' },
    roles: ROLE_SETS.run,
    body: embed(sendRequestBodySchema),
    response: embed(sendRequestResultSchema),
    timeoutMs: TIMEOUTS_MS.device,
    notes:
      'Only inventory devices with gw_http_base_url are targets; the device answer (any status) is returned as is. ' +
      'The device gw_http_headers (secrets in them included) are sent with every request, under the request headers of the same name. ' +
      'A header name that is not an HTTP token, or a value with CR, LF or another control character: 400 naming body.headers.<name>. ' +
      'The endpoint stays below gw_http_base_url: . or .. segments (percent-encoded too) or an absolute URL of the origin outside the base path: ' +
      '400 naming body.endpoint; another origin: 422 DEVICE_HTTP_NOT_CONFIGURED. Redirects are followed only below the base URL.',
  },
  // the spec's POST /gw/ssh/send_command
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
  // the spec's POST /configuration_manager/templates/search
  {
    name: 'searchDeviceTemplates',
    safe: true,
    summary: 'Search device templates',
    http: { method: 'POST', path: '/configuration_manager/templates/search' },
    auditKind: 'device-template',
    roles: ['admin', 'apiread'],
    body: searchDeviceTemplatesBodySchema,
    response: deviceTemplateSearchResultSchema,
    notes:
      'options defines no members in the spec: any object is accepted (an empty one included); skip and limit are honoured when numbers, other members ignored.',
  },
  // additions: the SSH host keys the gateway trusts (what DEVICE_HOST_KEY_CHANGED and _UNKNOWN ask an operator to change)
  {
    name: 'getKnownHosts',
    summary: 'The SSH host keys the device gateway trusts',
    http: { method: 'GET', path: '/gw/knownHosts' },
    auditKind: 'host-key',
    roles: ROLE_SETS.read,
    query: closed({ ...listQuerySchema.properties }),
    response: resultsOf(knownHostSchema),
    addition: true,
    notes:
      'One entry per SSH endpoint (host:port, [address]:port for IPv6), trusted on first use or by PUT /gw/knownHosts/:hostPort. ' +
      'Shared list options: filter by hostPort or fingerprint, sort by hostPort (default) or created; another query member is refused, 400 VALIDATION_FAILED naming it.',
  },
  {
    name: 'trustHostKey',
    summary: 'Trust a host key for an SSH endpoint',
    http: { method: 'PUT', path: '/gw/knownHosts/:hostPort' },
    auditKind: 'host-key',
    roles: ROLE_SETS.write,
    params: { hostPort: hostPortParam },
    body: obj({ fingerprint: fingerprintSchema }, ['fingerprint']),
    response: knownHostSchema,
    addition: true,
    notes:
      'Replaces any key trusted for the endpoint: the next session checks the device against this fingerprint (under strict checking too). ' +
      'Take the fingerprint from the device itself, out of band (`ssh-keyscan -p PORT HOST | ssh-keygen -lf -`). Recorded in the audit trail with the fingerprint before and after. ' +
      'A port outside 1..65535 (or written with a leading zero) is 400 naming params.hostPort.',
  },
  {
    name: 'forgetHostKey',
    summary: 'Forget the host key trusted for an SSH endpoint',
    http: { method: 'DELETE', path: '/gw/knownHosts/:hostPort' },
    auditKind: 'host-key',
    roles: ROLE_SETS.write,
    params: { hostPort: hostPortParam },
    response: acknowledgement(),
    addition: true,
    notes:
      'For a device that was replaced (DEVICE_HOST_KEY_CHANGED): the next session trusts the key it is shown (trust on first use), or under strict checking refuses it until one is trusted. 404 HOST_KEY_NOT_FOUND when no key is trusted for the endpoint.',
  },
  // additions: device templates of the configuration manager
  {
    name: 'createDeviceTemplate',
    summary: 'Create a device template',
    http: { method: 'POST', path: '/configuration_manager/templates' },
    auditKind: 'device-template',
    roles: ROLE_SETS.write,
    body: deviceTemplateInputSchema,
    response: deviceTemplateSchema,
    addition: true,
  },
  {
    name: 'getDeviceTemplate',
    summary: 'Get a device template',
    http: { method: 'GET', path: '/configuration_manager/templates/:id' },
    auditKind: 'device-template',
    roles: ROLE_SETS.read,
    response: deviceTemplateSchema,
    addition: true,
  },
  {
    name: 'updateDeviceTemplate',
    summary: 'Replace a device template',
    http: { method: 'PUT', path: '/configuration_manager/templates/:id' },
    auditKind: 'device-template',
    roles: ROLE_SETS.write,
    body: deviceTemplateInputSchema,
    response: deviceTemplateSchema,
    addition: true,
  },
  {
    name: 'deleteDeviceTemplate',
    summary: 'Delete a device template',
    http: { method: 'DELETE', path: '/configuration_manager/templates/:id' },
    auditKind: 'device-template',
    roles: ROLE_SETS.write,
    response: acknowledgement(),
    addition: true,
  },
  {
    name: 'renderDeviceTemplate',
    summary: 'Render a device template with variables',
    http: { method: 'POST', path: '/configuration_manager/templates/:id/render' },
    auditKind: 'device-template',
    roles: ROLE_SETS.read,
    body: obj({ variables: anyObject('placeholder values; they override the template defaults') }, ['variables']),
    response: obj({ rendered: str({ description: 'the template text with placeholders replaced' }) }, ['rendered']),
    addition: true,
    notes:
      "Rendered by the platform's one Jinja2 (Python Jinja2 3.1.2, sandboxed, in the studio service: studio.renderJinjaText, profile device): no autoescape, " +
      'trim_blocks, lstrip_blocks and keep_trailing_newline on. Strict: a variable the template prints, iterates or uses without a value is a 422 DEVICE_TEMPLATE_RENDER_FAILED naming it ' +
      '(details.missing); tests in conditions ({% if x %}, x is defined) and the default filter are allowed. Syntax errors are 422 DEVICE_TEMPLATE_RENDER_FAILED with the line; ' +
      'timeouts, sandbox refusals and an unavailable renderer answer as the template builder does (422 TEMPLATE_TIMEOUT, 400 TEMPLATE_SANDBOX_VIOLATION, 503 TEMPLATE_RENDERER_UNAVAILABLE).',
  },
  // additions: configuration backups
  {
    name: 'getConfigBackups',
    summary: 'List the configuration backups of a device',
    roles: ROLE_SETS.read,
    body: deviceWith({ ...listPage, withConfig: bool({ default: false, description: 'include the configuration text' }) }, []),
    response: resultsOf(embed(configBackupSchema)),
    addition: true,
    notes:
      'Bus-only, beyond the spec: backups are taken by getConfig (backup true) and before setConfig, loadConfig and restoreConfig; newest first.',
  },
  ...BUS_METHODS,
]);
