import { mkdir, readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '@nap/contracts';
import type { GatewayDevicesConfig } from '../../config';
import { describe, isDir, isFile, resolveInside, stripExt, subdirs, walkFiles } from './files';

/** Kinds of runnable things, each discovered in a configured directory. */
export type RunnerKind = 'playbooks' | 'modules' | 'runnerModules' | 'roles' | 'collections' | 'scripts' | 'iac';

/** One discovered item. */
export type RunnerEntry = {
  name: string;
  /** Relative to the kind's directory. */
  path: string;
  description: string;
};

/** One item with its content (files up to 64 KiB) or, for directories, its file list. */
export type RunnerItem = RunnerEntry & { content?: string; files?: string[] };

const WHAT: Record<RunnerKind, string> = {
  playbooks: 'playbook',
  modules: 'module',
  runnerModules: 'runner module',
  roles: 'role',
  collections: 'collection',
  scripts: 'script',
  iac: 'infrastructure-as-code module',
};

const MAX_SHOWN_BYTES = 64 * 1024;

/**
 * Discovery of playbooks, modules, roles, collections, scripts and IaC modules, each in its
 * configured directory and nothing outside it. Discovery is cached until a `refresh`.
 */
export class RunnerCatalog {
  private readonly cache = new Map<RunnerKind, RunnerEntry[]>();

  constructor(private readonly config: GatewayDevicesConfig) {}

  /** Creates the configured directories (so an operator sees where things go). */
  async ensureDirectories(): Promise<void> {
    for (const dir of Object.values(this.config.dirs)) await mkdir(dir, { recursive: true }).catch(() => undefined);
  }

  /** Discovered items of a kind (cached). */
  async list(kind: RunnerKind): Promise<RunnerEntry[]> {
    const cached = this.cache.get(kind);
    if (cached !== undefined) return cached;
    const found = await this.scan(kind);
    this.cache.set(kind, found);
    return found;
  }

  /** Rescans a kind. */
  async refresh(kind: RunnerKind): Promise<RunnerEntry[]> {
    this.cache.delete(kind);
    return this.list(kind);
  }

  /** One item with its content (files up to 64 KiB) or, for directories, its file list. Errors: `RUNNER_NOT_FOUND`, `RUNNER_PATH_REFUSED`. */
  async get(kind: RunnerKind, name: string): Promise<RunnerItem> {
    const entry = (await this.scan(kind)).find((e) => e.name === name);
    const resolved = this.locate(kind, name, entry);
    if (entry === undefined) throw notFound(kind, name);
    if (await isDir(resolved)) return { ...entry, files: await walkFiles(resolved, () => true) };
    const content = await readFile(resolved, 'utf8');
    return { ...entry, content: content.length > MAX_SHOWN_BYTES ? `${content.slice(0, MAX_SHOWN_BYTES)}\n[truncated]` : content };
  }

  /** The item to run and its absolute path, rescanning once when it is not cached yet. */
  async find(kind: RunnerKind, name: string): Promise<{ entry: RunnerEntry; file: string }> {
    const entry = (await this.list(kind)).find((e) => e.name === name) ?? (await this.refresh(kind)).find((e) => e.name === name);
    const file = this.locate(kind, name, entry);
    if (entry === undefined) throw notFound(kind, name);
    return { entry, file };
  }

  /** Modules and roles of one collection, named `namespace.collection.item`. */
  async collectionItems(collection: string, kind: 'modules' | 'roles'): Promise<RunnerEntry[]> {
    const dir = this.collectionDir(collection);
    if (kind === 'roles') return (await this.scanRoles(path.join(dir, 'roles'))).map((e) => ({ ...e, name: `${collection}.${e.name}` }));
    const modules = path.join(dir, 'plugins', 'modules');
    const files = await walkFiles(modules, (rel) => !rel.includes('/') && rel.endsWith('.py') && rel !== '__init__.py');
    return Promise.all(
      files.map(async (rel) => ({
        name: `${collection}.${stripExt(rel)}`,
        path: `plugins/modules/${rel}`,
        description: await describe(path.join(modules, rel)),
      })),
    );
  }

  /** One module or role of a collection, by its short or fully qualified name. */
  async collectionItem(collection: string, kind: 'modules' | 'roles', name: string): Promise<RunnerEntry> {
    const fq = name.includes('.') ? name : `${collection}.${name}`;
    const found = (await this.collectionItems(collection, kind)).find((e) => e.name === fq);
    if (found === undefined)
      throw new AppError('RUNNER_NOT_FOUND', `Collection "${collection}" has no ${kind === 'modules' ? 'module' : 'role'} named "${name}"`);
    return found;
  }

  private dir(kind: RunnerKind): string {
    return this.config.dirs[kind];
  }

  private locate(kind: RunnerKind, name: string, entry: RunnerEntry | undefined): string {
    // The name is checked against the directory even when discovery did not list it, so a
    // traversal attempt is refused as such rather than reported missing.
    return resolveInside(this.dir(kind), entry?.path ?? name, WHAT[kind]);
  }

  private collectionDir(collection: string): string {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(collection);
    if (m === null) throw new AppError('RUNNER_PATH_REFUSED', `"${collection}" is not a collection name (namespace.collection)`);
    return resolveInside(this.config.dirs.collections, `ansible_collections/${m[1] ?? ''}/${m[2] ?? ''}`, 'collection');
  }

  private async scan(kind: RunnerKind): Promise<RunnerEntry[]> {
    const root = this.dir(kind);
    switch (kind) {
      case 'playbooks': {
        const files = await walkFiles(
          root,
          (rel) => /\.ya?ml$/.test(rel) && !rel.includes('/roles/') && !rel.includes('group_vars/') && !rel.includes('host_vars/'),
        );
        return Promise.all(files.map(async (rel) => ({ name: rel, path: rel, description: await describe(path.join(root, rel)) })));
      }
      case 'modules': {
        const files = await walkFiles(root, (rel) => !rel.includes('/'));
        return Promise.all(
          files.map(async (rel) => ({ name: stripExt(rel), path: rel, description: await describe(path.join(root, rel)) })),
        );
      }
      case 'runnerModules':
      case 'scripts': {
        const files = await walkFiles(root, () => true);
        return Promise.all(files.map(async (rel) => ({ name: rel, path: rel, description: await describe(path.join(root, rel)) })));
      }
      case 'roles':
        return this.scanRoles(root);
      case 'collections': {
        const out: RunnerEntry[] = [];
        const base = path.join(root, 'ansible_collections');
        for (const ns of await subdirs(base)) {
          for (const coll of await subdirs(path.join(base, ns)))
            out.push({ name: `${ns}.${coll}`, path: `ansible_collections/${ns}/${coll}/`, description: '' });
        }
        return out;
      }
      case 'iac': {
        const out: RunnerEntry[] = [];
        for (const name of await subdirs(root)) {
          const files = (await readdir(path.join(root, name)).catch(() => [])).filter((f) => f.endsWith('.tf'));
          if (files.length > 0)
            out.push({ name, path: `${name}/`, description: await describe(path.join(root, name, files.sort()[0] ?? 'main.tf')) });
        }
        return out;
      }
    }
  }

  /** Roles of a roles directory: `<role>/tasks/main.yml` (or `.yaml`). */
  private async scanRoles(base: string): Promise<RunnerEntry[]> {
    const out: RunnerEntry[] = [];
    for (const name of await subdirs(base)) {
      for (const main of ['tasks/main.yml', 'tasks/main.yaml']) {
        if (await isFile(path.join(base, name, main))) {
          out.push({ name, path: `${name}/`, description: await describe(path.join(base, name, main)) });
          break;
        }
      }
    }
    return out;
  }
}

function notFound(kind: RunnerKind, name: string): AppError {
  return new AppError('RUNNER_NOT_FOUND', `No ${WHAT[kind]} named "${name}"`, { details: { name } });
}
