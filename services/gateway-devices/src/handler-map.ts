import type { HandlerMap } from '@nap/bus';
import type { GatewayContext } from './context';
import { addDeviceToDeviceGroup } from './handlers/add-device-to-device-group';
import { applyIac } from './handlers/apply-iac';
import { connectDevice } from './handlers/connect-device';
import { createDevice } from './handlers/create-device';
import { createDeviceGroup } from './handlers/create-device-group';
import { createDeviceRaw } from './handlers/create-device-raw';
import { createDeviceTemplate } from './handlers/create-device-template';
import { createInventoryDevice } from './handlers/create-inventory-device';
import { deleteDevice } from './handlers/delete-device';
import { deleteDeviceFromDeviceGroup } from './handlers/delete-device-from-device-group';
import { deleteDeviceGroup } from './handlers/delete-device-group';
import { deleteDeviceTemplate } from './handlers/delete-device-template';
import { deleteInventoryDevice } from './handlers/delete-inventory-device';
import { destroyIac } from './handlers/destroy-iac';
import { dryRunPlaybook } from './handlers/dry-run-playbook';
import { getCollectionModule } from './handlers/get-collection-module';
import { getCollectionModules } from './handlers/get-collection-modules';
import { getCollectionRole } from './handlers/get-collection-role';
import { getCollectionRoles } from './handlers/get-collection-roles';
import { getCollections } from './handlers/get-collections';
import { getConfig } from './handlers/get-config';
import { getConfigBackups } from './handlers/get-config-backups';
import { getDevice } from './handlers/get-device';
import { getDeviceDetailsRaw } from './handlers/get-device-details-raw';
import { getDeviceGroup } from './handlers/get-device-group';
import { getDeviceGroups } from './handlers/get-device-groups';
import { getDeviceHealth } from './handlers/get-device-health';
import { getDeviceInfo } from './handlers/get-device-info';
import { getDeviceTemplate } from './handlers/get-device-template';
import { getDevices } from './handlers/get-devices';
import { getDevicesDetailsRaw } from './handlers/get-devices-details-raw';
import { getDevicesFiltered } from './handlers/get-devices-filtered';
import { getIac } from './handlers/get-iac';
import { getIacs } from './handlers/get-iacs';
import { getInventoryDevice } from './handlers/get-inventory-device';
import { getInventoryDevices } from './handlers/get-inventory-devices';
import { getInventoryGroups } from './handlers/get-inventory-groups';
import { getModule } from './handlers/get-module';
import { getModules } from './handlers/get-modules';
import { getOperationalData } from './handlers/get-operational-data';
import { getPlatformJson } from './handlers/get-platform-json';
import { getPlaybook } from './handlers/get-playbook';
import { getPlaybooks } from './handlers/get-playbooks';
import { getRole } from './handlers/get-role';
import { getRoles } from './handlers/get-roles';
import { getRunnerModule } from './handlers/get-runner-module';
import { getRunnerModules } from './handlers/get-runner-modules';
import { getScript } from './handlers/get-script';
import { getScripts } from './handlers/get-scripts';
import { initIac } from './handlers/init-iac';
import { isAlive } from './handlers/is-alive';
import { loadConfig } from './handlers/load-config';
import { netconfExecRpc } from './handlers/netconf-exec-rpc';
import { netconfGetConfig } from './handlers/netconf-get-config';
import { netconfSetConfig } from './handlers/netconf-set-config';
import { planIac } from './handlers/plan-iac';
import { refreshCollections } from './handlers/refresh-collections';
import { refreshInventory } from './handlers/refresh-inventory';
import { refreshModules } from './handlers/refresh-modules';
import { refreshPlaybooks } from './handlers/refresh-playbooks';
import { refreshRoles } from './handlers/refresh-roles';
import { refreshRunnerModules } from './handlers/refresh-runner-modules';
import { refreshScripts } from './handlers/refresh-scripts';
import { renderDeviceTemplate } from './handlers/render-device-template';
import { restoreConfig } from './handlers/restore-config';
import { runCollectionModule } from './handlers/run-collection-module';
import { runCollectionRole } from './handlers/run-collection-role';
import { runCommand } from './handlers/run-command';
import { runModule } from './handlers/run-module';
import { runPlaybook } from './handlers/run-playbook';
import { runRole } from './handlers/run-role';
import { runRunnerModule } from './handlers/run-runner-module';
import { runScript } from './handlers/run-script';
import { runScriptEnv } from './handlers/run-script-env';
import { searchDeviceTemplates } from './handlers/search-device-templates';
import { sendRequest } from './handlers/send-request';
import { setConfig } from './handlers/set-config';
import { sshSendCommand } from './handlers/ssh-send-command';
import { sshSendCommandExec } from './handlers/ssh-send-command-exec';
import { sshSendConfigSet } from './handlers/ssh-send-config-set';
import { updateDevice } from './handlers/update-device';
import { updateDeviceGroup } from './handlers/update-device-group';
import { updateDeviceTemplate } from './handlers/update-device-template';
import { updateInventoryDevice } from './handlers/update-inventory-device';

/** Every operation of the gateway-devices service, each served by its handler in `handlers/<operation-name>.ts`. */
export function gatewayHandlers(g: GatewayContext): HandlerMap<'gateway-devices'> {
  return {
    createInventoryDevice: createInventoryDevice(g),
    updateInventoryDevice: updateInventoryDevice(g),
    deleteInventoryDevice: deleteInventoryDevice(g),
    getInventoryDevice: getInventoryDevice(g),
    getInventoryDevices: getInventoryDevices(g),
    getInventoryGroups: getInventoryGroups(g),
    refreshInventory: refreshInventory(g),
    createDevice: createDevice(g),
    createDeviceRaw: createDeviceRaw(g),
    updateDevice: updateDevice(g),
    deleteDevice: deleteDevice(g),
    getDevice: getDevice(g),
    getDevices: getDevices(g),
    getDevicesFiltered: getDevicesFiltered(g),
    getDeviceDetailsRaw: getDeviceDetailsRaw(g),
    getDevicesDetailsRaw: getDevicesDetailsRaw(g),
    createDeviceGroup: createDeviceGroup(g),
    updateDeviceGroup: updateDeviceGroup(g),
    deleteDeviceGroup: deleteDeviceGroup(g),
    getDeviceGroup: getDeviceGroup(g),
    getDeviceGroups: getDeviceGroups(g),
    addDeviceToDeviceGroup: addDeviceToDeviceGroup(g),
    deleteDeviceFromDeviceGroup: deleteDeviceFromDeviceGroup(g),
    runCommand: runCommand(g),
    getConfig: getConfig(g),
    setConfig: setConfig(g),
    loadConfig: loadConfig(g),
    restoreConfig: restoreConfig(g),
    getConfigBackups: getConfigBackups(g),
    getDeviceHealth: getDeviceHealth(g),
    getDeviceInfo: getDeviceInfo(g),
    connectDevice: connectDevice(g),
    isAlive: isAlive(g),
    getOperationalData: getOperationalData(g),
    sshSendCommand: sshSendCommand(g),
    sshSendCommandExec: sshSendCommandExec(g),
    sshSendConfigSet: sshSendConfigSet(g),
    netconfGetConfig: netconfGetConfig(g),
    netconfSetConfig: netconfSetConfig(g),
    netconfExecRpc: netconfExecRpc(g),
    sendRequest: sendRequest(g),
    searchDeviceTemplates: searchDeviceTemplates(g),
    createDeviceTemplate: createDeviceTemplate(g),
    getDeviceTemplate: getDeviceTemplate(g),
    updateDeviceTemplate: updateDeviceTemplate(g),
    deleteDeviceTemplate: deleteDeviceTemplate(g),
    renderDeviceTemplate: renderDeviceTemplate(g),
    getPlatformJson: getPlatformJson(g),
    getPlaybook: getPlaybook(g),
    getPlaybooks: getPlaybooks(g),
    refreshPlaybooks: refreshPlaybooks(g),
    runPlaybook: runPlaybook(g),
    dryRunPlaybook: dryRunPlaybook(g),
    getModule: getModule(g),
    getModules: getModules(g),
    refreshModules: refreshModules(g),
    runModule: runModule(g),
    getRunnerModule: getRunnerModule(g),
    getRunnerModules: getRunnerModules(g),
    refreshRunnerModules: refreshRunnerModules(g),
    runRunnerModule: runRunnerModule(g),
    getRole: getRole(g),
    getRoles: getRoles(g),
    refreshRoles: refreshRoles(g),
    runRole: runRole(g),
    getCollections: getCollections(g),
    refreshCollections: refreshCollections(g),
    getCollectionModules: getCollectionModules(g),
    getCollectionRoles: getCollectionRoles(g),
    getCollectionModule: getCollectionModule(g),
    getCollectionRole: getCollectionRole(g),
    runCollectionModule: runCollectionModule(g),
    runCollectionRole: runCollectionRole(g),
    getScript: getScript(g),
    getScripts: getScripts(g),
    refreshScripts: refreshScripts(g),
    runScript: runScript(g),
    runScriptEnv: runScriptEnv(g),
    getIac: getIac(g),
    getIacs: getIacs(g),
    initIac: initIac(g),
    planIac: planIac(g),
    applyIac: applyIac(g),
    destroyIac: destroyIac(g),
  };
}
