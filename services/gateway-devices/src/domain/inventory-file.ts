import { AppError } from '@nap/contracts';
import { isRecord } from '@nap/util';

/** A host of an inventory file: its variables (group variables applied) and groups. */
export interface InventoryHost {
  name: string;
  variables: Record<string, unknown>;
  groups: string[];
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
    throw new AppError(
      'DEVICE_INVENTORY_INVALID',
      `The inventory file ${file} is not JSON (the Ansible JSON inventory layout is expected)`,
      { cause: err },
    );
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
    const children = Array.isArray(g.children)
      ? g.children.map((c) => [String(c), data[String(c)]] as const)
      : isRecord(g.children)
        ? Object.entries(g.children)
        : [];
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
