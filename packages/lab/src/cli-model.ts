import { familyOf, initialCiscoConfig, initialJunosConfig } from './cli-data';
import type { CliFamily, ConfigNode, SimulatedDeviceType } from './cli-data';

/**
 * The configuration state of one simulated device, shared by all its sessions: what `show
 * running-config` prints and what configuration commands change. IOS-likes keep lines and blocks;
 * Junos keeps `set` statements for running and candidate.
 */
export class DeviceModel {
  readonly family: CliFamily;
  ciscoRunning: ConfigNode[] = [];
  ciscoStartup: ConfigNode[] = [];
  junosRunning: string[] = [];
  junosCandidate: string[] = [];
  lastChange = new Date();

  constructor(
    readonly deviceType: SimulatedDeviceType,
    initialHostname: string,
  ) {
    this.family = familyOf(deviceType);
    if (this.family === 'junos') {
      this.junosRunning = initialJunosConfig(initialHostname);
      this.junosCandidate = [...this.junosRunning];
    } else {
      this.ciscoRunning = initialCiscoConfig(this.family, initialHostname);
      this.ciscoStartup = cloneNodes(this.ciscoRunning);
    }
  }

  /** The hostname the prompt shows: from `hostname` (IOS-likes) or the committed `system host-name`. */
  hostname(): string {
    if (this.family === 'junos') {
      const statement = this.junosRunning.find((s) => s.startsWith('system host-name '));
      return statement === undefined ? 'router' : unquote(statement.slice('system host-name '.length));
    }
    const node = this.ciscoRunning.find((n) => n.children === undefined && n.line.startsWith('hostname '));
    return node === undefined ? 'Router' : node.line.slice('hostname '.length).trim();
  }

  /** Interfaces with their settings, derived from the configuration. */
  interfaces(): InterfaceInfo[] {
    if (this.family === 'junos') {
      const names = new Map<string, InterfaceInfo>();
      for (const s of this.junosRunning) {
        const m = /^interfaces (\S+)(?: (.*))?$/.exec(s);
        if (m?.[1] === undefined) continue;
        const info = names.get(m[1]) ?? { name: m[1], shutdown: false, addresses: [] };
        const rest = m[2] ?? '';
        if (rest === 'disable') info.shutdown = true;
        const desc = /^description (.*)$/.exec(rest);
        if (desc?.[1] !== undefined) info.description = unquote(desc[1]);
        const addr = /^unit (\d+) family inet address (\S+)$/.exec(rest);
        if (addr?.[2] !== undefined) info.addresses.push(`${addr[2]}@${addr[1] ?? '0'}`);
        names.set(m[1], info);
      }
      return [...names.values()];
    }
    return this.ciscoRunning
      .filter((n) => n.children !== undefined && n.line.startsWith('interface '))
      .map((n) => {
        const children = n.children ?? [];
        const info: InterfaceInfo = { name: n.line.slice('interface '.length), shutdown: children.includes('shutdown'), addresses: [] };
        const desc = children.find((c) => c.startsWith('description '));
        if (desc !== undefined) info.description = desc.slice('description '.length);
        for (const c of children) {
          const m = /^ip address (\S+)(?: (\S+))?$/.exec(c);
          if (m?.[1] !== undefined) info.addresses.push(m[2] === undefined ? m[1] : `${m[1]}/${maskToPrefix(m[2])}`);
        }
        return info;
      });
  }

  /** `show running-config` (IOS-likes) or `show configuration` (Junos) as the device prints it. */
  renderRunningConfig(): string {
    if (this.family === 'junos') return renderJunosConfig(this.junosRunning);
    return this.renderCisco(this.ciscoRunning, 'running');
  }

  /** `show startup-config`. */
  renderStartupConfig(): string {
    return this.renderCisco(this.ciscoStartup, 'startup');
  }

  private renderCisco(nodes: ConfigNode[], which: 'running' | 'startup'): string {
    const indent = this.family === 'ios' ? ' ' : this.family === 'nxos' ? '  ' : '   ';
    const body: string[] = [];
    for (const node of nodes) {
      if (this.family !== 'nxos' && node.children !== undefined && body[body.length - 1] !== '!') body.push('!');
      body.push(node.line);
      for (const child of node.children ?? []) body.push(`${indent}${child}`);
      if (this.family !== 'nxos' && node.children !== undefined) body.push('!');
    }
    if (this.family === 'ios') {
      const text = ['!', ...body, 'end'].join('\n');
      const header =
        which === 'running'
          ? ['Building configuration...', '', `Current configuration : ${Buffer.byteLength(text)} bytes`]
          : [`Using ${Buffer.byteLength(text)} out of 262144 bytes`];
      return [...header, text].join('\n');
    }
    if (this.family === 'eos') {
      return [
        '! Command: show running-config',
        `! device: ${this.hostname()} (vEOS-lab, EOS-4.30.1F)`,
        '!',
        '! boot system flash:/vEOS-lab.swi',
        '!',
        ...body,
        'end',
      ].join('\n');
    }
    return [
      '',
      '!Command: show running-config',
      `!Running configuration last done at: ${this.lastChange.toUTCString()}`,
      '',
      'version 9.3(8) Bios:version 07.69',
      ...body,
    ].join('\n');
  }
}

/** An interface as the show commands describe it. */
export interface InterfaceInfo {
  name: string;
  description?: string;
  shutdown: boolean;
  /** `a.b.c.d/len` (Junos: `a.b.c.d/len@unit`). */
  addresses: string[];
}

/** Deep copy of configuration nodes. */
export function cloneNodes(nodes: readonly ConfigNode[]): ConfigNode[] {
  return nodes.map((n) => (n.children === undefined ? { line: n.line } : { line: n.line, children: [...n.children] }));
}

/** Prefix length of a dotted netmask. */
export function maskToPrefix(mask: string): number {
  return mask
    .split('.')
    .map((o) => Number(o))
    .reduce((bits, octet) => bits + (octet >>> 0).toString(2).replace(/0/g, '').length, 0);
}

/** Removes surrounding double quotes. */
export function unquote(text: string): string {
  const t = text.trim();
  return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1) : t;
}

/** Splits a Junos statement into words, keeping quoted strings whole (quotes kept). */
export function junosTokens(statement: string): string[] {
  return statement.match(/"[^"]*"|\S+/g) ?? [];
}

// Keywords whose next word names the node (`unit 0`, `family inet`), and keywords that take a value
// and end a statement (`host-name r1`). A heuristic of the Junos schema, enough to print hierarchy.
const NAMED_NODES = new Set([
  'unit',
  'family',
  'area',
  'route',
  'group',
  'neighbor',
  'user',
  'file',
  'policy-statement',
  'term',
  'vlan',
  'instance',
  'filter',
  'prefix-list',
  'server',
  'host',
  'interface',
]);
const VALUE_LEAVES = new Set([
  'host-name',
  'domain-name',
  'time-zone',
  'description',
  'address',
  'encrypted-password',
  'class',
  'next-hop',
  'mtu',
  'vlan-id',
  'any',
  'location',
  'contact',
  'local-address',
  'peer-as',
  'autonomous-system',
  'router-id',
  'version',
]);

/** Junos keywords whose value a new `set` replaces instead of adding. */
export const JUNOS_SINGLE_VALUED = new Set([
  'host-name',
  'domain-name',
  'time-zone',
  'description',
  'encrypted-password',
  'class',
  'mtu',
  'location',
  'contact',
  'router-id',
]);

interface TreeNode {
  children: Map<string, TreeNode>;
  leaves: string[];
}

function splitStatement(tokens: string[]): { path: string[]; leaf: string } {
  const groups: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] ?? '';
    const next = tokens[i + 1];
    if (VALUE_LEAVES.has(t) && next !== undefined) {
      groups.push(tokens.slice(i).join(' '));
      break;
    }
    if (NAMED_NODES.has(t) && next !== undefined) {
      groups.push(`${t} ${next}`);
      i++;
      continue;
    }
    groups.push(t);
  }
  const leaf = groups.pop() ?? '';
  return { path: groups, leaf };
}

/** Renders `set` statements as the hierarchical text of `show configuration`. */
export function renderJunosConfig(statements: readonly string[]): string {
  const root: TreeNode = { children: new Map(), leaves: [] };
  for (const statement of statements) {
    const { path, leaf } = splitStatement(junosTokens(statement));
    let node = root;
    for (const name of path) {
      let child = node.children.get(name);
      if (child === undefined) {
        child = { children: new Map(), leaves: [] };
        node.children.set(name, child);
      }
      node = child;
    }
    if (leaf !== '' && !node.leaves.includes(leaf)) node.leaves.push(leaf);
  }
  const out: string[] = [];
  const walk = (node: TreeNode, depth: number): void => {
    const pad = '    '.repeat(depth);
    for (const leaf of node.leaves) {
      // A flag that is also a container (`family inet;` and `family inet { … }`) prints as the container.
      if (!node.children.has(leaf)) out.push(`${pad}${leaf};`);
    }
    for (const [name, child] of node.children) {
      out.push(`${pad}${name} {`);
      walk(child, depth + 1);
      out.push(`${pad}}`);
    }
  };
  walk(root, 0);
  return out.join('\n');
}
