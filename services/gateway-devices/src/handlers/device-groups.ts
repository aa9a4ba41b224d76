import type { Caller } from '@nap/contracts';
import type { HandlerMap } from '@nap/bus';
import type { GatewayContext } from './context';

/** The seven device-group methods (bus-only). Membership lives on the devices' `groups`. */
export function deviceGroupHandlers(g: GatewayContext): HandlerMap {
  return {
    createDeviceGroup: async (input: { body: { name: string; description?: string; devices?: string[] }; caller: Caller }) =>
      g.inventory.createGroup(input.body.name, input.body.description ?? '', input.body.devices ?? [], input.caller.username),
    updateDeviceGroup: async (input: { body: { name: string; description?: string; devices?: string[] }; caller: Caller }) => {
      const changes: { description?: string; devices?: string[] } = {};
      if (input.body.description !== undefined) changes.description = input.body.description;
      if (input.body.devices !== undefined) changes.devices = input.body.devices;
      return g.inventory.updateGroup(input.body.name, changes, input.caller.username);
    },
    deleteDeviceGroup: async (input: { body: { name: string } }) => {
      await g.inventory.deleteGroup(input.body.name);
      return { status: 'success', message: `Device group "${input.body.name}" deleted` };
    },
    getDeviceGroup: async (input: { body: { name: string } }) => g.inventory.getGroup(input.body.name),
    getDeviceGroups: async () => {
      const results = await g.inventory.listGroups();
      return { results, total: results.length };
    },
    addDeviceToDeviceGroup: async (input: { body: { group: string; devices: string[] } }) => g.inventory.addToGroup(input.body.group, input.body.devices),
    deleteDeviceFromDeviceGroup: async (input: { body: { group: string; devices: string[] } }) => g.inventory.removeFromGroup(input.body.group, input.body.devices),
  } as HandlerMap;
}
