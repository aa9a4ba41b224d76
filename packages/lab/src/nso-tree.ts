/**
 * The data side of the lab's NSO-shaped peer: an in-memory YANG-JSON tree (RFC 7951 encoding: member
 * names qualified by module where the namespace changes, lists as arrays of entries) addressed by
 * RESTCONF paths (`tailf-ncs:devices/device=C-IOS1/config`) or NSO keypaths
 * (`/ncs:devices/device{C-IOS1}/config/ios:hostname`), and the renderings of a commit's changes that
 * NSO answers to a dry run (`cli`, `native`, `xml`).
 *
 * There is no YANG compiler here: which members are lists, and their keys, come from
 * {@link LIST_KEYS}; every other array is a leaf-list. That covers the seeded device tree.
 */

export type Json = null | boolean | number | string | Json[] | { [member: string]: Json };
export type JsonObject = { [member: string]: Json };

/** Lists of the seeded models and their keys (local names); any other list is keyed by `name`. */
export const LIST_KEYS: Readonly<Record<string, readonly string[]>> = {
  device: ['name'],
  group: ['name'],
  Loopback: ['name'],
  GigabitEthernet: ['name'],
  'sync-result': ['device'],
};

/** YANG prefixes NSO keypaths use, and their modules. */
export const MODULE_OF_PREFIX: Readonly<Record<string, string>> = {
  ncs: 'tailf-ncs',
  ios: 'tailf-ned-cisco-ios',
};

/** One step of a path: a module-qualified (or inherited) name, and key values for a list entry. */
export interface Segment {
  module?: string;
  name: string;
  keys?: string[];
}

/** Where a path leads in the tree. */
export interface Location {
  /** The object holding the target member (for a list entry: the object holding the list). */
  parent: JsonObject;
  /** The member name as stored in `parent`. */
  member: string;
  /** `module:name` of the target, as a RESTCONF answer names it. */
  qualified: string;
  /** Index of the entry in the list, for a list entry. */
  index?: number;
  /** The target's value: the entry for a list entry. */
  value: Json | undefined;
  /** The module in force at the target (what unqualified children inherit). */
  module: string;
  kind: 'container' | 'list' | 'entry' | 'leaf' | 'leaf-list' | 'missing';
}

/** Why a path does not lead anywhere: the first segment that is not there. */
export class PathError extends Error {
  constructor(
    message: string,
    readonly reason: 'not-found' | 'invalid',
  ) {
    super(message);
  }
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function split(name: string): { module?: string; local: string } {
  const i = name.indexOf(':');
  return i < 0 ? { local: name } : { module: name.slice(0, i), local: name.slice(i + 1) };
}

/** The keys of list `local`. */
export function keysOf(local: string): readonly string[] {
  return LIST_KEYS[local] ?? ['name'];
}

/** True when `local` names a list of the seeded models (an absent list reads as empty, not as missing). */
export function isKnownList(local: string): boolean {
  return Object.hasOwn(LIST_KEYS, local);
}

/** Parses the path below `/restconf/data/`: `a:b/c=k1,k2/d`, each name and key percent-decoded. */
export function parseRestconfPath(raw: string): Segment[] {
  const segments: Segment[] = [];
  for (const part of raw.split('/')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decodeURIComponent(eq < 0 ? part : part.slice(0, eq));
    const { module, local } = split(name);
    if (local === '') throw new PathError(`"${part}" names no node`, 'invalid');
    const segment: Segment = { name: local };
    if (module !== undefined) segment.module = module;
    if (eq >= 0)
      segment.keys = part
        .slice(eq + 1)
        .split(',')
        .map((k) => decodeURIComponent(k));
    segments.push(segment);
  }
  return segments;
}

/** Parses an NSO keypath: `/ncs:devices/device{C-IOS1}/config/ios:hostname`; keys in braces, several separated by spaces, quoted when they hold one. */
export function parseKeypath(keypath: string): Segment[] {
  const segments: Segment[] = [];
  const re = /\/([^/{]+)(?:\{((?:[^}"]|"[^"]*")*)\})?/gy;
  let m: RegExpExecArray | null;
  let at = 0;
  while (at < keypath.length) {
    re.lastIndex = at;
    m = re.exec(keypath);
    if (m === null) throw new PathError(`"${keypath}" is not a keypath (at "${keypath.slice(at)}")`, 'invalid');
    at = re.lastIndex;
    const { module, local } = split(m[1] ?? '');
    const segment: Segment = { name: local };
    if (module !== undefined) segment.module = MODULE_OF_PREFIX[module] ?? module;
    if (m[2] !== undefined) segment.keys = [...m[2].matchAll(/"([^"]*)"|(\S+)/g)].map((k) => k[1] ?? k[2] ?? '');
    segments.push(segment);
  }
  if (segments.length === 0) throw new PathError(`"${keypath}" is not a keypath`, 'invalid');
  return segments;
}

/**
 * The member of `node` a segment names. `lenient` (keypaths) lets an unqualified name match a child
 * of another module when only one child has that local name, as NSO resolves keypaths without
 * prefixes; RESTCONF paths must qualify a name whose module differs from its parent's.
 */
function memberFor(
  node: JsonObject,
  segment: Segment,
  parentModule: string,
  lenient: boolean,
): { member: string; module: string } | undefined {
  const wanted = segment.module ?? parentModule;
  for (const key of Object.keys(node)) {
    const { module, local } = split(key);
    if (local === segment.name && (module ?? parentModule) === wanted) return { member: key, module: wanted };
  }
  if (lenient && segment.module === undefined) {
    const found = Object.keys(node).filter((key) => split(key).local === segment.name);
    if (found.length === 1 && found[0] !== undefined) return { member: found[0], module: split(found[0]).module ?? parentModule };
  }
  return undefined;
}

function entryMatches(entry: Json, local: string, keys: string[]): boolean {
  if (!isObject(entry)) return false;
  return keysOf(local).every((k, i) => keys[i] !== undefined && String(entry[k]) === keys[i]);
}

function kindOf(value: Json | undefined): Location['kind'] {
  if (value === undefined) return 'missing';
  if (Array.isArray(value)) return value.length > 0 && value.every(isObject) ? 'list' : 'leaf-list';
  return isObject(value) ? 'container' : 'leaf';
}

/**
 * Follows `segments` from `root`. With `create`, absent containers on the way are made (never list
 * entries); the last segment may be absent (kind `missing`). Throws {@link PathError} naming the
 * first segment that is not there.
 */
export function locate(root: JsonObject, segments: Segment[], options: { lenient?: boolean; create?: boolean } = {}): Location {
  let node: JsonObject = root;
  let module = '';
  for (let i = 0; i < segments.length; i += 1) {
    const segment = segments[i] as Segment;
    const last = i === segments.length - 1;
    const shown = `${segment.module !== undefined ? `${segment.module}:` : ''}${segment.name}${segment.keys ? `=${segment.keys.join(',')}` : ''}`;
    const found = memberFor(node, segment, module, options.lenient === true);
    const memberModule = found?.module ?? segment.module ?? module;
    if (memberModule === '') throw new PathError(`"${shown}" must name its module (module:${segment.name})`, 'invalid');
    const qualified = `${memberModule}:${segment.name}`;
    if (found === undefined) {
      if (last && segment.keys === undefined)
        return {
          parent: node,
          member: segment.module !== undefined && segment.module !== module ? qualified : segment.name,
          qualified,
          value: undefined,
          module: memberModule,
          kind: 'missing',
        };
      if (options.create === true && segment.keys === undefined && !isKnownList(segment.name)) {
        const member = segment.module !== undefined && segment.module !== module ? qualified : segment.name;
        const made: JsonObject = {};
        node[member] = made;
        node = made;
        module = memberModule;
        continue;
      }
      if (last && segment.keys !== undefined)
        return {
          parent: node,
          member: segment.module !== undefined && segment.module !== module ? qualified : segment.name,
          qualified,
          value: undefined,
          module: memberModule,
          kind: 'missing',
        };
      throw new PathError(`"${shown}" is not there`, 'not-found');
    }
    const value = node[found.member];
    if (segment.keys !== undefined) {
      if (!Array.isArray(value)) throw new PathError(`"${shown}": ${segment.name} is not a list`, 'invalid');
      if (segment.keys.length !== keysOf(segment.name).length)
        throw new PathError(
          `"${shown}": ${segment.name} has ${keysOf(segment.name).length} key(s) (${keysOf(segment.name).join(', ')})`,
          'invalid',
        );
      const index = value.findIndex((e) => entryMatches(e, segment.name, segment.keys ?? []));
      if (index < 0) {
        if (last)
          return { parent: node, member: found.member, qualified, index: -1, value: undefined, module: memberModule, kind: 'missing' };
        throw new PathError(`"${shown}" is not there`, 'not-found');
      }
      const entry = value[index] as JsonObject;
      if (last) return { parent: node, member: found.member, qualified, index, value: entry, module: memberModule, kind: 'entry' };
      node = entry;
      module = memberModule;
      continue;
    }
    if (last) return { parent: node, member: found.member, qualified, value, module: memberModule, kind: kindOf(value) };
    if (!isObject(value))
      throw new PathError(`"${shown}" is a ${Array.isArray(value) ? 'list' : 'leaf'}; name an entry (${segment.name}=key)`, 'invalid');
    node = value;
    module = memberModule;
  }
  return { parent: root, member: '', qualified: 'ietf-restconf:data', value: root, module: '', kind: 'container' };
}

export function clone<T extends Json>(value: T): T {
  return structuredClone(value);
}

/** Merges `patch` into `target` (RESTCONF PATCH, plain merge): objects member by member, list entries by key, anything else replaced. */
export function merge(target: JsonObject, patch: JsonObject): void {
  for (const [member, value] of Object.entries(patch)) {
    const current = target[member];
    const local = split(member).local;
    if (isObject(current) && isObject(value)) merge(current, value);
    else if (Array.isArray(current) && Array.isArray(value) && value.every(isObject) && current.every(isObject)) {
      for (const entry of value as JsonObject[]) {
        const keys = keysOf(local).map((k) => String(entry[k]));
        const at = current.findIndex((e) => entryMatches(e, local, keys));
        if (at < 0) current.push(entry);
        else merge(current[at] as JsonObject, entry);
      }
    } else target[member] = value;
  }
}

// ---- renderings of a change (dry run) ----

/** One changed leaf: where it is (local names, list entries as `name key`), before and after. */
interface LeafChange {
  path: string[];
  before?: string;
  after?: string;
}

function scalar(v: Json): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Every leaf that differs between two trees, in document order. */
export function changedLeaves(before: Json | undefined, after: Json | undefined, path: string[] = []): LeafChange[] {
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  if (isObject(before) || isObject(after)) {
    const b = isObject(before) ? before : {};
    const a = isObject(after) ? after : {};
    const members = [...new Set([...Object.keys(b), ...Object.keys(a)])];
    return members.flatMap((m) => changedLeaves(b[m], a[m], [...path, split(m).local]));
  }
  const isEntries = (v: Json | undefined): v is JsonObject[] => Array.isArray(v) && v.length > 0 && v.every(isObject);
  if (isEntries(before) || isEntries(after)) {
    const local = path[path.length - 1] ?? '';
    const keyOf = (e: JsonObject) =>
      keysOf(local)
        .map((k) => scalar(e[k] ?? ''))
        .join(' ');
    const b = new Map((isEntries(before) ? before : []).map((e) => [keyOf(e), e] as const));
    const a = new Map((isEntries(after) ? after : []).map((e) => [keyOf(e), e] as const));
    const keys = [...new Set([...b.keys(), ...a.keys()])];
    return keys.flatMap((k) => changedLeaves(b.get(k), a.get(k), [...path.slice(0, -1), `${local} ${k}`]));
  }
  const out: LeafChange = { path };
  if (before !== undefined && before !== null) out.before = Array.isArray(before) ? before.map(scalar).join(' ') : scalar(before);
  if (after !== undefined && after !== null) out.after = Array.isArray(after) ? after.map(scalar).join(' ') : scalar(after);
  return [out];
}

/** NSO's `cli` dry-run format: the curly-brace tree of the change, `+`/`-` in the first column. */
export function renderCli(changes: LeafChange[]): string {
  const lines: string[] = [];
  let open: string[] = [];
  for (const change of changes) {
    const dirs = change.path.slice(0, -1);
    const leaf = change.path[change.path.length - 1] ?? '';
    let common = 0;
    while (common < open.length && common < dirs.length && open[common] === dirs[common]) common += 1;
    for (let d = open.length - 1; d >= common; d -= 1) lines.push(` ${'    '.repeat(d)}}`);
    for (let d = common; d < dirs.length; d += 1) lines.push(` ${'    '.repeat(d)}${dirs[d]} {`);
    open = dirs;
    const pad = '    '.repeat(dirs.length);
    if (change.before !== undefined) lines.push(`-${pad}${leaf} ${change.before};`);
    if (change.after !== undefined) lines.push(`+${pad}${leaf} ${change.after};`);
  }
  for (let d = open.length - 1; d >= 0; d -= 1) lines.push(` ${'    '.repeat(d)}}`);
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

/**
 * NSO's `native` dry-run format: per device, the commands its NED would send. IOS-like: a list entry
 * under `interface` opens `interface <List><key>`, `ip address primary` is `ip address A M`, a
 * removed leaf is `no <leaf>`.
 */
export function renderNative(changes: LeafChange[]): { name: string; data: string }[] {
  const byDevice = new Map<string, { lines: string[]; section?: string }>();
  for (const change of changes) {
    // devices / device <name> / config / ...
    const deviceAt = change.path.findIndex((p) => p.startsWith('device '));
    if (deviceAt < 0 || change.path[deviceAt + 1] !== 'config') continue;
    const device = (change.path[deviceAt] ?? '').slice('device '.length);
    const out = byDevice.get(device) ?? { lines: [] };
    byDevice.set(device, out);
    const [first, second, ...tail] = change.path.slice(deviceAt + 2);
    const inInterface = first === 'interface' && second !== undefined && second.includes(' ');
    const section = inInterface ? `interface ${second.replace(' ', '')}` : undefined;
    if (out.section !== undefined && out.section !== section) out.lines.push(' exit');
    if (section !== undefined && out.section !== section) out.lines.push(section);
    out.section = section;
    const words = (inInterface ? tail : [first, second, ...tail].filter((w) => w !== undefined))
      .join(' ')
      .replace(/^ip address primary (address|mask)$/, 'ip address $1');
    const indent = inInterface ? ' ' : '';
    out.lines.push(change.after === undefined ? `${indent}no ${words}` : `${indent}${words} ${change.after}`);
  }
  return [...byDevice.entries()].map(([name, out]) => ({
    name,
    data: `${[...out.lines, ...(out.section !== undefined ? [' exit'] : [])].join('\n')}\n`,
  }));
}

function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** NSO's `xml` dry-run format: the changed leaves as an XML tree (removed ones marked `operation="delete"`). */
export function renderXml(changes: LeafChange[]): string {
  return changes
    .map((change) => {
      const parts = change.path.map((p) => p.split(' '));
      const open = parts.slice(0, -1).map(([n, k], d) => `${'  '.repeat(d)}<${n}>${k !== undefined ? `<name>${xmlEscape(k)}</name>` : ''}`);
      const [leaf] = parts[parts.length - 1] ?? [''];
      const depth = parts.length - 1;
      const body =
        change.after === undefined
          ? `${'  '.repeat(depth)}<${leaf} operation="delete"/>`
          : `${'  '.repeat(depth)}<${leaf}>${xmlEscape(change.after)}</${leaf}>`;
      const close = parts
        .slice(0, -1)
        .map(([n], d) => `${'  '.repeat(d)}</${n}>`)
        .reverse();
      return [...open, body, ...close].join('\n');
    })
    .join('\n');
}
