import { readFile } from 'node:fs/promises';
import { AppError } from '@nap/contracts';
import type { Caller } from '@nap/contracts';
import type { HandlerMap } from '@nap/bus';
import { mapDeviceVars } from '../domain/device-variables';
import { knownHostsKey } from '../domain/known-hosts';
import type { DeviceDoc } from '../store/collections';
import type { DeviceView, UpsertMode } from '../store/inventory-repository';
import type { GatewayContext } from './context';

type DeviceBody = { name: string; variables?: Record<string, unknown>; groups?: string[] };
type ListBody = { filter?: Record<string, unknown>; sort?: unknown; skip?: number; limit?: number };

/** Inventory devices: the `/gw/*Inventory*` routes and the bus-only device methods. */
export function inventoryHandlers(g: GatewayContext): HandlerMap {
  const write = async (name: string, input: { variables?: Record<string, unknown>; groups?: string[] }, mode: UpsertMode, caller: Caller) => {
    const result = await g.inventory.upsert(name, input, mode, caller.username);
    g.access.trackSessionLimit(result.doc.name, result.doc.variables);
    g.logger.info({ device: name, created: result.created, by: caller.username }, result.created ? 'Inventory device created' : 'Inventory device updated');
    return result;
  };

  const details = async (doc: DeviceDoc): Promise<DeviceView & { hostKeyFingerprint: string | null; secretVariables: string[] }> => {
    const hostPort = knownHostsKey(typeof doc.variables.gw_host === 'string' ? doc.variables.gw_host : doc.name, typeof doc.variables.gw_port === 'number' ? doc.variables.gw_port : 22);
    return { ...g.inventory.view(doc), hostKeyFingerprint: (await g.knownHostFingerprint(hostPort)) ?? null, secretVariables: Object.keys(doc.secrets ?? {}).sort() };
  };

  const remove = async (name: string, caller: Caller) => {
    const doc = await g.inventory.get(name);
    await g.inventory.delete(name);
    g.access.trackSessionLimit(name, { ...doc.variables, gw_session_limit: undefined });
    g.logger.info({ device: name, by: caller.username }, 'Inventory device deleted');
    return { status: 'success', message: `Device "${name}" deleted` };
  };

  return {
    createInventoryDevice: async (input: { body: DeviceBody; caller: Caller }) => {
      const { body } = input;
      const { doc, created } = await write(body.name, body, 'createOrUpdate', input.caller);
      const view = g.inventory.view(doc);
      return { name: view.name, variables: view.variables, groups: view.groups, created };
    },
    updateInventoryDevice: async (input: { body: DeviceBody; caller: Caller }) => g.inventory.view((await write(input.body.name, input.body, 'update', input.caller)).doc),
    deleteInventoryDevice: async (input: { body: { name: string }; caller: Caller }) => remove(input.body.name, input.caller),
    getInventoryDevice: async (input: { body: { name: string } }) => g.inventory.view(await g.inventory.get(input.body.name)),
    getInventoryDevices: async (input: { body: ListBody }) => {
      const { filter, sort, skip = 0, limit = 0 } = input.body;
      const page = await g.inventory.list({ filter, sort, skip, limit });
      return { items: page.items, total: page.total, skip, limit };
    },
    getInventoryGroups: async (input: { body: { skip?: number; limit?: number } }) => {
      const all = await g.inventory.listGroups();
      const skip = input.body.skip ?? 0;
      const limit = input.body.limit ?? 0;
      return { results: all.slice(skip, limit > 0 ? skip + limit : undefined), total: all.length };
    },

    createDevice: async (input: { body: { name: string; deviceVars: Record<string, unknown>; groups?: string[] }; caller: Caller }) => {
      const { body } = input;
      const variables = mapDeviceVars(body.deviceVars);
      return g.inventory.view((await write(body.name, { variables, ...(body.groups === undefined ? {} : { groups: body.groups }) }, 'create', input.caller)).doc);
    },
    createDeviceRaw: async (input: { body: DeviceBody; caller: Caller }) => g.inventory.view((await write(input.body.name, input.body, 'create', input.caller)).doc),
    updateDevice: async (input: { body: DeviceBody; caller: Caller }) => g.inventory.view((await write(input.body.name, input.body, 'update', input.caller)).doc),
    deleteDevice: async (input: { body: { name: string }; caller: Caller }) => remove(input.body.name, input.caller),
    getDevice: async (input: { body: { name: string } }) => g.inventory.view(await g.inventory.get(input.body.name)),
    getDevices: async (input: { body: { skip?: number; limit?: number } }) => {
      const page = await g.inventory.list({ skip: input.body.skip ?? 0, limit: input.body.limit ?? 0 });
      return { results: page.items, total: page.total };
    },
    getDevicesFiltered: async (input: { body: ListBody }) => {
      const page = await g.inventory.list({ filter: input.body.filter, sort: input.body.sort, skip: input.body.skip ?? 0, limit: input.body.limit ?? 0 });
      return { results: page.items, total: page.total };
    },
    getDeviceDetailsRaw: async (input: { body: { name: string } }) => details(await g.inventory.get(input.body.name)),
    getDevicesDetailsRaw: async (input: { body: { names?: string[] } }) => {
      const docs = await g.inventory.listByNames(input.body.names);
      const results = await Promise.all(docs.map((d) => details(d)));
      return { results, total: results.length };
    },

    refreshInventory: async (input: { caller: Caller }) => {
      const file = g.config.inventoryFile;
      let text: string | undefined;
      try {
        text = await readFile(file, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new AppError('DEVICE_INVENTORY_INVALID', `The inventory file ${file} cannot be read`, { cause: err });
      }
      if (text !== undefined) {
        for (const host of parseInventory(text, file)) {
          await write(host.name, { variables: host.variables, groups: host.groups }, 'createOrUpdate', input.caller);
        }
      }
      const page = await g.inventory.list({});
      return { results: page.items, total: page.total };
    },
  } as HandlerMap;
}

interface InventoryHost {
  name: string;
  variables: Record<string, unknown>;
  groups: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads an Ansible inventory in JSON: the YAML-like layout (`{ all: { hosts, vars, children } }`) or
 * the dynamic-inventory layout (`{ group: { hosts: [..], vars, children: [..] }, _meta: { hostvars } }`).
 * Group variables apply to member hosts, host variables win. `all` and `ungrouped` are not kept as groups.
 */
export function parseInventory(text: string, file: string): InventoryHost[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new AppError('DEVICE_INVENTORY_INVALID', `The inventory file ${file} is not JSON (the Ansible JSON inventory layout is expected)`, { cause: err });
  }
  if (!isRecord(data)) throw new AppError('DEVICE_INVENTORY_INVALID', `The inventory file ${file} does not hold an object`);
  const hosts = new Map<string, InventoryHost>();
  const hostvars = isRecord(data._meta) && isRecord(data._meta.hostvars) ? data._meta.hostvars : {};
  const host = (name: string): InventoryHost => {
    let h = hosts.get(name);
    if (h === undefined) {
      h = { name, variables: {}, groups: [] };
      hosts.set(name, h);
    }
    return h;
  };
  const walk = (groupName: string, group: unknown, inherited: Record<string, unknown>, seen: Set<string>): void => {
    if (seen.has(groupName)) return;
    seen.add(groupName);
    const g = isRecord(group) ? group : {};
    const vars = { ...inherited, ...(isRecord(g.vars) ? g.vars : {}) };
    const members: [string, Record<string, unknown>][] = Array.isArray(g.hosts)
      ? g.hosts.filter((h): h is string => typeof h === 'string').map((h) => [h, {}])
      : isRecord(g.hosts)
        ? Object.entries(g.hosts).map(([h, v]) => [h, isRecord(v) ? v : {}])
        : [];
    for (const [name, own] of members) {
      const h = host(name);
      h.variables = { ...vars, ...h.variables, ...own };
      if (groupName !== 'all' && groupName !== 'ungrouped' && !h.groups.includes(groupName)) h.groups.push(groupName);
    }
    const children = Array.isArray(g.children) ? g.children.map((c) => [String(c), data[String(c)]] as const) : isRecord(g.children) ? Object.entries(g.children) : [];
    for (const [child, childGroup] of children) walk(child, childGroup, vars, seen);
  };
  if (isRecord(data.all)) {
    walk('all', data.all, {}, new Set());
  } else {
    for (const [groupName, group] of Object.entries(data)) if (groupName !== '_meta') walk(groupName, group, {}, new Set());
  }
  for (const [name, vars] of Object.entries(hostvars)) {
    const h = host(name);
    if (isRecord(vars)) h.variables = { ...h.variables, ...vars };
  }
  return [...hosts.values()];
}

