import type { HandlerMap } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';
import { addDeviceToDeviceGroup } from './add-device-to-device-group';
import { applyIac } from './apply-iac';
import { connectDevice } from './connect-device';
import { createDevice } from './create-device';
import { createDeviceGroup } from './create-device-group';
import { createDeviceRaw } from './create-device-raw';
import { createDeviceTemplate } from './create-device-template';
import { createInventoryDevice } from './create-inventory-device';
import { deleteDevice } from './delete-device';
import { deleteDeviceFromDeviceGroup } from './delete-device-from-device-group';
import { deleteDeviceGroup } from './delete-device-group';
import { deleteDeviceTemplate } from './delete-device-template';
import { forgetHostKey } from './forget-host-key';
import { getKnownHosts } from './get-known-hosts';
import { trustHostKey } from './trust-host-key';
import { deleteInventoryDevice } from './delete-inventory-device';
import { destroyIac } from './destroy-iac';
import { dryRunPlaybook } from './dry-run-playbook';
import { getCollectionModule } from './get-collection-module';
import { getCollectionModules } from './get-collection-modules';
import { getCollectionRole } from './get-collection-role';
import { getCollectionRoles } from './get-collection-roles';
import { getCollections } from './get-collections';
import { getConfig } from './get-config';
import { getConfigBackups } from './get-config-backups';
import { getDevice } from './get-device';
import { getDeviceDetailsRaw } from './get-device-details-raw';
import { getDeviceGroup } from './get-device-group';
import { getDeviceGroups } from './get-device-groups';
import { getDeviceHealth } from './get-device-health';
import { getDeviceInfo } from './get-device-info';
import { getDeviceTemplate } from './get-device-template';
import { getDevices } from './get-devices';
import { getDevicesDetailsRaw } from './get-devices-details-raw';
import { getDevicesFiltered } from './get-devices-filtered';
import { getIac } from './get-iac';
import { getIacs } from './get-iacs';
import { getInventoryDevice } from './get-inventory-device';
import { getInventoryDevices } from './get-inventory-devices';
import { getInventoryGroups } from './get-inventory-groups';
import { getModule } from './get-module';
import { getModules } from './get-modules';
import { getOperationalData } from './get-operational-data';
import { getPlatformJson } from './get-platform-json';
import { getPlaybook } from './get-playbook';
import { getPlaybooks } from './get-playbooks';
import { getRole } from './get-role';
import { getRoles } from './get-roles';
import { getRunnerModule } from './get-runner-module';
import { getRunnerModules } from './get-runner-modules';
import { getScript } from './get-script';
import { getScripts } from './get-scripts';
import { initIac } from './init-iac';
import { isAlive } from './is-alive';
import { loadConfig } from './load-config';
import { netconfExecRpc } from './netconf-exec-rpc';
import { netconfGetConfig } from './netconf-get-config';
import { netconfSetConfig } from './netconf-set-config';
import { planIac } from './plan-iac';
import { refreshCollections } from './refresh-collections';
import { refreshInventory } from './refresh-inventory';
import { refreshModules } from './refresh-modules';
import { refreshPlaybooks } from './refresh-playbooks';
import { refreshRoles } from './refresh-roles';
import { refreshRunnerModules } from './refresh-runner-modules';
import { refreshScripts } from './refresh-scripts';
import { renderDeviceTemplate } from './render-device-template';
import { restoreConfig } from './restore-config';
import { runCollectionModule } from './run-collection-module';
import { runCollectionRole } from './run-collection-role';
import { runCommand } from './run-command';
import { runModule } from './run-module';
import { runPlaybook } from './run-playbook';
import { runRole } from './run-role';
import { runRunnerModule } from './run-runner-module';
import { runScript } from './run-script';
import { runScriptEnv } from './run-script-env';
import { searchDeviceTemplates } from './search-device-templates';
import { sendRequest } from './send-request';
import { setConfig } from './set-config';
import { sshSendCommand } from './ssh-send-command';
import { sshSendCommandExec } from './ssh-send-command-exec';
import { sshSendConfigSet } from './ssh-send-config-set';
import { updateDevice } from './update-device';
import { updateDeviceGroup } from './update-device-group';
import { updateDeviceTemplate } from './update-device-template';
import { updateInventoryDevice } from './update-inventory-device';

/** Every operation of the gateway-devices service, each served by its handler in `handlers/<operation-name>.ts`. */
export function gatewayDevicesHandlers(svc: GatewayDevicesContext): HandlerMap<'gateway-devices'> {
  return {
    createInventoryDevice: createInventoryDevice(svc),
    updateInventoryDevice: updateInventoryDevice(svc),
    deleteInventoryDevice: deleteInventoryDevice(svc),
    getInventoryDevice: getInventoryDevice(svc),
    getInventoryDevices: getInventoryDevices(svc),
    getInventoryGroups: getInventoryGroups(svc),
    refreshInventory: refreshInventory(svc),
    createDevice: createDevice(svc),
    createDeviceRaw: createDeviceRaw(svc),
    updateDevice: updateDevice(svc),
    deleteDevice: deleteDevice(svc),
    getDevice: getDevice(svc),
    getDevices: getDevices(svc),
    getDevicesFiltered: getDevicesFiltered(svc),
    getDeviceDetailsRaw: getDeviceDetailsRaw(svc),
    getDevicesDetailsRaw: getDevicesDetailsRaw(svc),
    createDeviceGroup: createDeviceGroup(svc),
    updateDeviceGroup: updateDeviceGroup(svc),
    deleteDeviceGroup: deleteDeviceGroup(svc),
    getDeviceGroup: getDeviceGroup(svc),
    getDeviceGroups: getDeviceGroups(svc),
    addDeviceToDeviceGroup: addDeviceToDeviceGroup(svc),
    deleteDeviceFromDeviceGroup: deleteDeviceFromDeviceGroup(svc),
    runCommand: runCommand(svc),
    getConfig: getConfig(svc),
    setConfig: setConfig(svc),
    loadConfig: loadConfig(svc),
    restoreConfig: restoreConfig(svc),
    getConfigBackups: getConfigBackups(svc),
    getDeviceHealth: getDeviceHealth(svc),
    getDeviceInfo: getDeviceInfo(svc),
    connectDevice: connectDevice(svc),
    isAlive: isAlive(svc),
    getOperationalData: getOperationalData(svc),
    sshSendCommand: sshSendCommand(svc),
    sshSendCommandExec: sshSendCommandExec(svc),
    sshSendConfigSet: sshSendConfigSet(svc),
    netconfGetConfig: netconfGetConfig(svc),
    netconfSetConfig: netconfSetConfig(svc),
    netconfExecRpc: netconfExecRpc(svc),
    sendRequest: sendRequest(svc),
    searchDeviceTemplates: searchDeviceTemplates(svc),
    createDeviceTemplate: createDeviceTemplate(svc),
    getDeviceTemplate: getDeviceTemplate(svc),
    updateDeviceTemplate: updateDeviceTemplate(svc),
    deleteDeviceTemplate: deleteDeviceTemplate(svc),
    getKnownHosts: getKnownHosts(svc),
    trustHostKey: trustHostKey(svc),
    forgetHostKey: forgetHostKey(svc),
    renderDeviceTemplate: renderDeviceTemplate(svc),
    getPlatformJson: getPlatformJson(svc),
    getPlaybook: getPlaybook(svc),
    getPlaybooks: getPlaybooks(svc),
    refreshPlaybooks: refreshPlaybooks(svc),
    runPlaybook: runPlaybook(svc),
    dryRunPlaybook: dryRunPlaybook(svc),
    getModule: getModule(svc),
    getModules: getModules(svc),
    refreshModules: refreshModules(svc),
    runModule: runModule(svc),
    getRunnerModule: getRunnerModule(svc),
    getRunnerModules: getRunnerModules(svc),
    refreshRunnerModules: refreshRunnerModules(svc),
    runRunnerModule: runRunnerModule(svc),
    getRole: getRole(svc),
    getRoles: getRoles(svc),
    refreshRoles: refreshRoles(svc),
    runRole: runRole(svc),
    getCollections: getCollections(svc),
    refreshCollections: refreshCollections(svc),
    getCollectionModules: getCollectionModules(svc),
    getCollectionRoles: getCollectionRoles(svc),
    getCollectionModule: getCollectionModule(svc),
    getCollectionRole: getCollectionRole(svc),
    runCollectionModule: runCollectionModule(svc),
    runCollectionRole: runCollectionRole(svc),
    getScript: getScript(svc),
    getScripts: getScripts(svc),
    refreshScripts: refreshScripts(svc),
    runScript: runScript(svc),
    runScriptEnv: runScriptEnv(svc),
    getIac: getIac(svc),
    getIacs: getIacs(svc),
    initIac: initIac(svc),
    planIac: planIac(svc),
    applyIac: applyIac(svc),
    destroyIac: destroyIac(svc),
  };
}
