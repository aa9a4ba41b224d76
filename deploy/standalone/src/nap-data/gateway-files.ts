import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { GATEWAY_FILE_DIRS, GATEWAY_INVENTORY_FILE, pathSetting } from '@nap/gateway-devices';
import { filesUnder } from './locations';

/**
 * Where the device gateway's files are (playbooks, modules, roles, collections, scripts, IaC
 * modules, the inventory file), as the gateway itself finds them: `<data>/gateway/<kind>`, or the
 * directory its variable names (`NAP_GW_PLAYBOOKS_DIR`, …).
 *
 * A backup names each file by its place under `<data>/gateway` in the default layout
 * (`playbooks/site.yml`, `inventory.json`, `notes.txt`), whatever directory it was read from; a
 * restore writes it where the restoring environment keeps that kind. So a backup of a gateway
 * whose playbooks live in `/srv/ansible` restores into another whose playbooks live elsewhere, or
 * in the default place.
 */
export interface GatewayFiles {
  /** `<data>/gateway`: files of no kind, and the kinds not moved; unknown for a MongoDB target without `--files-to`. */
  base: string | undefined;
  kinds: { prefix: string; dir: string; variable: string; moved: boolean }[];
  inventory: { file: string; moved: boolean } | undefined;
}

/** One file of the gateway: its name in a backup and where it is. */
export interface GatewayFile {
  path: string;
  full: string;
}

/** The gateway's files under the data directory `dataDir` (none known: only the moved kinds) and the environment's variables. */
export function gatewayFilesOf(dataDir: string | undefined, env: NodeJS.ProcessEnv): GatewayFiles {
  const base = dataDir === undefined ? undefined : path.resolve(dataDir, 'gateway');
  const kinds: GatewayFiles['kinds'] = [];
  for (const { subdir, variable } of GATEWAY_FILE_DIRS) {
    const moved = pathSetting(env, variable);
    if (moved !== undefined) kinds.push({ prefix: subdir, dir: moved, variable, moved: true });
    else if (base !== undefined) kinds.push({ prefix: subdir, dir: path.join(base, subdir), variable, moved: false });
  }
  const movedInventory = pathSetting(env, GATEWAY_INVENTORY_FILE.variable);
  const inventory =
    movedInventory !== undefined
      ? { file: movedInventory, moved: true }
      : base !== undefined
        ? { file: path.join(base, GATEWAY_INVENTORY_FILE.name), moved: false }
        : undefined;
  return { base, kinds, inventory };
}

/** Where a file of a backup goes: its kind's directory, else under `<data>/gateway`; undefined when that is unknown. */
export function placeOf(files: GatewayFiles, name: string): string | undefined {
  if (name === GATEWAY_INVENTORY_FILE.name) return files.inventory?.file;
  const [first, ...rest] = name.split('/');
  const kind = rest.length > 0 ? files.kinds.find((k) => k.prefix === first) : undefined;
  if (kind !== undefined) return path.join(kind.dir, ...rest);
  return files.base === undefined ? undefined : path.join(files.base, ...name.split('/'));
}

export interface GatewayListing {
  files: GatewayFile[];
  /** Files under `<data>/gateway/<kind>` while its variable moved the kind elsewhere: the gateway does not read them. */
  unread: { dir: string; variable: string; count: number }[];
}

/**
 * Every regular file of the gateway, each once, named as a backup names it. A directory nested in
 * another (roles inside the playbooks' directory) is the nested kind's; two kinds in one directory
 * are the first's. Symbolic links are not followed.
 */
export function listGatewayFiles(files: GatewayFiles): GatewayListing {
  const roots: { prefix: string; dir: string }[] = [];
  for (const kind of files.kinds) if (!roots.some((r) => r.dir === kind.dir)) roots.push({ prefix: kind.prefix, dir: kind.dir });
  if (files.base !== undefined && !roots.some((r) => r.dir === files.base)) roots.push({ prefix: '', dir: files.base });
  const unread: GatewayListing['unread'] = [];
  const apart = new Set<string>(roots.map((r) => r.dir));
  if (files.inventory !== undefined) apart.add(files.inventory.file);
  if (files.base !== undefined) {
    // the default places of what was moved are not the gateway's any more
    for (const kind of files.kinds.filter((k) => k.moved)) {
      const dir = path.join(files.base, kind.prefix);
      if (apart.has(dir)) continue;
      apart.add(dir);
      const count = filesUnder(dir).files.length;
      if (count > 0) unread.push({ dir, variable: kind.variable, count });
    }
    const inventoryDefault = path.join(files.base, GATEWAY_INVENTORY_FILE.name);
    if (files.inventory?.moved === true && !apart.has(inventoryDefault)) {
      apart.add(inventoryDefault);
      if (existsSync(inventoryDefault)) unread.push({ dir: inventoryDefault, variable: GATEWAY_INVENTORY_FILE.variable, count: 1 });
    }
  }
  const listed: GatewayFile[] = [];
  for (const root of roots) {
    for (const rel of filesUnder(root.dir, (full) => apart.has(full)).files)
      listed.push({ path: root.prefix === '' ? rel : `${root.prefix}/${rel}`, full: path.join(root.dir, ...rel.split('/')) });
  }
  const inventory = files.inventory?.file;
  if (inventory !== undefined && existsSync(inventory) && statSync(inventory).isFile())
    listed.push({ path: GATEWAY_INVENTORY_FILE.name, full: inventory });
  return { files: listed, unread };
}

/** Notes on the files a backup or a copy left out because the gateway does not read them. */
export function unreadNotes(listing: GatewayListing): string[] {
  return listing.unread.map(
    (u) => `${u.count} files under ${u.dir} left out: ${u.variable} moved them elsewhere, and the device gateway does not read them`,
  );
}

/** Notes on where the moved kinds were read from or written to. */
export function movedNotes(files: GatewayFiles, verb: 'read from' | 'written to'): string[] {
  const notes = files.kinds.filter((k) => k.moved).map((k) => `${k.prefix} ${verb} ${k.dir} (${k.variable})`);
  if (files.inventory?.moved === true) notes.push(`the inventory ${verb} ${files.inventory.file} (${GATEWAY_INVENTORY_FILE.variable})`);
  return notes;
}
