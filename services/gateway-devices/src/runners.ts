import { accessSync, constants as fsConstants } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppError } from '@nap/contracts';
import type { GatewayConfig } from './config';
import { findOnPath, resolveInside, runProcess } from './domain/process-run';
import type { ProcessOutcome } from './domain/process-run';
import type { InventoryRepository, ResolvedDevice } from './store/inventory-repository';

/** Kinds of runnable things, each discovered in a configured directory. */
export type RunnerKind = 'playbooks' | 'modules' | 'runnerModules' | 'roles' | 'collections' | 'scripts' | 'iac';

/** One discovered item. */
export interface RunnerEntry {
  name: string;
  /** Relative to the kind's directory. */
  path: string;
  description: string;
}

/** Arguments of a run. */
export interface RunRequest {
  name: string;
  args?: Record<string, unknown> | string[];
  /** Seconds; capped by the configured run time limit. */
  timeout?: number;
  hosts?: string[];
  env?: Record<string, string>;
}

const WHAT: Record<RunnerKind, string> = {
  playbooks: 'playbook',
  modules: 'module',
  runnerModules: 'runner module',
  roles: 'role',
  collections: 'collection',
  scripts: 'script',
  iac: 'infrastructure-as-code module',
};

const MAX_DEPTH = 4;
const MAX_SHOWN_BYTES = 64 * 1024;

async function isFile(p: string): Promise<boolean> {
  return (await stat(p).catch(() => undefined))?.isFile() === true;
}

async function isDir(p: string): Promise<boolean> {
  return (await stat(p).catch(() => undefined))?.isDirectory() === true;
}

function isExecutable(p: string): boolean {
  try {
    accessSync(p, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function walkFiles(root: string, accept: (rel: string) => boolean, depth = 0, rel = ''): Promise<string[]> {
  if (depth > MAX_DEPTH) return [];
  const entries = await readdir(path.join(root, rel), { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name.startsWith('.')) continue;
    const child = rel === '' ? e.name : `${rel}/${e.name}`;
    if (e.isDirectory()) out.push(...(await walkFiles(root, accept, depth + 1, child)));
    else if (e.isFile() && accept(child)) out.push(child);
  }
  return out;
}

async function subdirs(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name).sort();
}

/** The first comment or `name:` line of a file, as its description. */
async function describe(file: string): Promise<string> {
  const text = (await readFile(file, 'utf8').catch(() => '')).slice(0, 4096);
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (t.startsWith('#!') || t === '' || t === '---') continue;
    const name = /^-?\s*name:\s*(.+)$/.exec(t);
    if (name?.[1] !== undefined) return name[1].replace(/^["']|["']$/g, '');
    const comment = /^(?:#|\/\/|--)\s*(.+)$/.exec(t);
    if (comment?.[1] !== undefined) return comment[1];
    if (!t.startsWith('#')) break;
  }
  return '';
}

function stripExt(file: string): string {
  return file.replace(/\.[^./]+$/, '');
}

/** `{ a: 1 }` → `--a=1`; a list is argv as given. */
function argv(args: RunRequest['args']): string[] {
  if (args === undefined) return [];
  if (Array.isArray(args)) return args.map(String);
  return Object.entries(args).map(([k, v]) => `--${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
}

function objectArgs(args: RunRequest['args'], what: string): Record<string, unknown> {
  if (args === undefined) return {};
  if (Array.isArray(args)) throw new AppError('VALIDATION_FAILED', `Arguments of a ${what} are variables: give args as an object`);
  return args;
}

// Environment of every run: enough to find programs and a home, nothing of the service's own
// settings (NAP_SECRET_KEY and the like stay out).
function baseEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const keep = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'USER', 'LOGNAME', 'SHELL', 'TZ'];
  const env: NodeJS.ProcessEnv = {};
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k];
  return { ...env, ...extra };
}

/** Maps an inventory device to Ansible host variables (its own variables are kept as given). */
function ansibleHostVars(device: ResolvedDevice): Record<string, unknown> {
  const v = device.variables;
  const out: Record<string, unknown> = { ...v };
  const map: [string, string][] = [
    ['gw_host', 'ansible_host'],
    ['gw_port', 'ansible_port'],
    ['gw_user', 'ansible_user'],
    ['gw_password', 'ansible_password'],
    ['gw_connection', 'ansible_connection'],
    ['gw_network_os', 'ansible_network_os'],
    ['gw_become', 'ansible_become'],
    ['gw_become_method', 'ansible_become_method'],
    ['gw_become_pass', 'ansible_become_password'],
    ['gw_ssh_private_key_file', 'ansible_ssh_private_key_file'],
  ];
  for (const [from, to] of map) if (v[from] !== undefined && out[to] === undefined) out[to] = v[from];
  return out;
}

/**
 * Discovery and runs of playbooks, modules, roles, collections, scripts and IaC modules, each from
 * its configured directory and nothing outside it. Discovery is cached until a `refresh`.
 */
export class RunnerCatalog {
  private readonly cache = new Map<string, RunnerEntry[]>();

  constructor(
    private readonly config: GatewayConfig,
    private readonly inventory: InventoryRepository,
  ) {}

  /** Creates the configured directories (so an operator sees where things go). */
  async ensureDirectories(): Promise<void> {
    for (const dir of Object.values(this.config.dirs)) await mkdir(dir, { recursive: true }).catch(() => undefined);
  }

  private dir(kind: RunnerKind): string {
    return this.config.dirs[kind === 'collections' ? 'collections' : kind];
  }

  private async scan(kind: RunnerKind, collection?: string): Promise<RunnerEntry[]> {
    const root = this.dir(kind);
    switch (kind) {
      case 'playbooks': {
        const files = await walkFiles(root, (rel) => /\.ya?ml$/.test(rel) && !rel.includes('/roles/') && !rel.includes('group_vars/') && !rel.includes('host_vars/'));
        return Promise.all(files.map(async (rel) => ({ name: rel, path: rel, description: await describe(path.join(root, rel)) })));
      }
      case 'modules': {
        const files = await walkFiles(root, (rel) => !rel.includes('/'));
        return Promise.all(files.map(async (rel) => ({ name: stripExt(rel), path: rel, description: await describe(path.join(root, rel)) })));
      }
      case 'runnerModules':
      case 'scripts': {
        const files = await walkFiles(root, () => true);
        return Promise.all(files.map(async (rel) => ({ name: rel, path: rel, description: await describe(path.join(root, rel)) })));
      }
      case 'roles': {
        const out: RunnerEntry[] = [];
        const base = collection === undefined ? root : path.join(this.collectionDir(collection), 'roles');
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
      case 'collections': {
        const out: RunnerEntry[] = [];
        const base = path.join(root, 'ansible_collections');
        for (const ns of await subdirs(base)) {
          for (const coll of await subdirs(path.join(base, ns))) out.push({ name: `${ns}.${coll}`, path: `ansible_collections/${ns}/${coll}/`, description: '' });
        }
        return out;
      }
      case 'iac': {
        const out: RunnerEntry[] = [];
        for (const name of await subdirs(root)) {
          const files = (await readdir(path.join(root, name)).catch(() => [])).filter((f) => f.endsWith('.tf'));
          if (files.length > 0) out.push({ name, path: `${name}/`, description: await describe(path.join(root, name, files.sort()[0] ?? 'main.tf')) });
        }
        return out;
      }
    }
  }

  private collectionDir(collection: string): string {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(collection);
    if (m === null) throw new AppError('RUNNER_PATH_REFUSED', `"${collection}" is not a collection name (namespace.collection)`);
    return resolveInside(this.config.dirs.collections, `ansible_collections/${m[1] ?? ''}/${m[2] ?? ''}`, 'collection');
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

  /** One item with its content (files up to 64 KiB) or, for directories, its file list. */
  async get(kind: RunnerKind, name: string): Promise<RunnerEntry & { content?: string; files?: string[] }> {
    const entry = (await this.scan(kind)).find((e) => e.name === name);
    const resolved = this.locate(kind, name, entry);
    if (entry === undefined) throw new AppError('RUNNER_NOT_FOUND', `No ${WHAT[kind]} named "${name}"`, { details: { name } });
    if (await isDir(resolved)) return { ...entry, files: await walkFiles(resolved, () => true) };
    const content = await readFile(resolved, 'utf8');
    return { ...entry, content: content.length > MAX_SHOWN_BYTES ? `${content.slice(0, MAX_SHOWN_BYTES)}\n[truncated]` : content };
  }

  private locate(kind: RunnerKind, name: string, entry: RunnerEntry | undefined): string {
    // The name is checked against the directory even when discovery did not list it, so a
    // traversal attempt is refused as such rather than reported missing.
    return resolveInside(this.dir(kind), entry?.path ?? name, WHAT[kind]);
  }

  private async entry(kind: RunnerKind, name: string): Promise<{ entry: RunnerEntry; file: string }> {
    const entry = (await this.list(kind)).find((e) => e.name === name) ?? (await this.refresh(kind)).find((e) => e.name === name);
    const file = this.locate(kind, name, entry);
    if (entry === undefined) throw new AppError('RUNNER_NOT_FOUND', `No ${WHAT[kind]} named "${name}"`, { details: { name } });
    return { entry, file };
  }

  /** Modules and roles of one collection. */
  async collectionItems(collection: string, kind: 'modules' | 'roles'): Promise<RunnerEntry[]> {
    const dir = this.collectionDir(collection);
    if (kind === 'roles') return (await this.scan('roles', collection)).map((e) => ({ ...e, name: `${collection}.${e.name}` }));
    const files = await walkFiles(path.join(dir, 'plugins', 'modules'), (rel) => !rel.includes('/') && rel.endsWith('.py') && rel !== '__init__.py');
    return Promise.all(files.map(async (rel) => ({ name: `${collection}.${stripExt(rel)}`, path: `plugins/modules/${rel}`, description: await describe(path.join(dir, 'plugins', 'modules', rel)) })));
  }

  async collectionItem(collection: string, kind: 'modules' | 'roles', name: string): Promise<RunnerEntry> {
    const fq = name.includes('.') ? name : `${collection}.${name}`;
    const found = (await this.collectionItems(collection, kind)).find((e) => e.name === fq);
    if (found === undefined) throw new AppError('RUNNER_NOT_FOUND', `Collection "${collection}" has no ${kind === 'modules' ? 'module' : 'role'} named "${name}"`);
    return found;
  }

  private timeoutMs(req: RunRequest): number {
    return Math.min(this.config.runTimeoutMs, req.timeout === undefined ? Infinity : Math.max(1, Math.round(req.timeout * 1000)));
  }

  private run(spec: { name: string; command: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv; stdin?: string }, req: RunRequest): Promise<ProcessOutcome> {
    return runProcess({ ...spec, timeoutMs: this.timeoutMs(req), maxOutputBytes: this.config.runOutputBytes });
  }

  // ---- Ansible ----

  private ansibleEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return baseEnv({
      ANSIBLE_NOCOLOR: '1',
      ANSIBLE_RETRY_FILES_ENABLED: '0',
      ANSIBLE_HOST_KEY_CHECKING: 'False',
      ANSIBLE_LIBRARY: this.config.dirs.modules,
      ANSIBLE_ROLES_PATH: this.config.dirs.roles,
      ANSIBLE_COLLECTIONS_PATH: this.config.dirs.collections,
      ANSIBLE_COLLECTIONS_PATHS: this.config.dirs.collections,
      ANSIBLE_STDOUT_CALLBACK: 'json',
      ANSIBLE_LOAD_CALLBACK_PLUGINS: '1',
      ANSIBLE_DEPRECATION_WARNINGS: 'False',
      ANSIBLE_LOCALHOST_WARNING: 'False',
      ...extra,
    });
  }

  /** A temp dir with an inventory of the gateway's devices (mode 0600, removed after the run). */
  private async withWorkDir<T>(fn: (dir: string, inventoryFile: string) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'nap-gw-run-'));
    try {
      const devices = await this.inventory.listByNames(undefined);
      const hosts: Record<string, Record<string, unknown>> = {
        localhost: { ansible_connection: 'local', ansible_python_interpreter: findOnPath('python3', '/usr/bin:/bin') ?? 'python3' },
      };
      const children: Record<string, { hosts: Record<string, Record<string, never>> }> = {};
      for (const doc of devices) {
        const device = await this.inventory.resolve(doc.name);
        if (device === undefined) continue;
        hosts[device.name] = ansibleHostVars(device);
        for (const group of device.groups) (children[group] ??= { hosts: {} }).hosts[device.name] = {};
      }
      const inventoryFile = path.join(dir, 'inventory.json');
      await writeFile(inventoryFile, JSON.stringify({ all: { hosts, children } }), { mode: 0o600 });
      return await fn(dir, inventoryFile);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async playbook(name: string, file: string, req: RunRequest, check: boolean): Promise<ProcessOutcome> {
    return this.withWorkDir(async (dir, inventoryFile) => {
      const extra = path.join(dir, 'extra-vars.json');
      await writeFile(extra, JSON.stringify(objectArgs(req.args, 'playbook')), { mode: 0o600 });
      const args = ['-i', inventoryFile, file, '-e', `@${extra}`];
      if (req.hosts !== undefined && req.hosts.length > 0) args.push('--limit', req.hosts.join(':'));
      if (check) args.push('--check');
      return this.run({ name, command: 'ansible-playbook', args, cwd: path.dirname(file), env: this.ansibleEnv() }, req);
    });
  }

  async runPlaybook(req: RunRequest, check: boolean): Promise<ProcessOutcome> {
    const { file } = await this.entry('playbooks', req.name);
    return this.playbook(`playbook ${req.name}`, file, req, check);
  }

  private async roleRun(role: string, req: RunRequest, name: string): Promise<ProcessOutcome> {
    return this.withWorkDir(async (dir) => {
      const file = path.join(dir, 'role.yml');
      const hosts = req.hosts !== undefined && req.hosts.length > 0 ? req.hosts.join(':') : 'localhost';
      // JSON is YAML: the generated play needs no YAML writer.
      await writeFile(file, JSON.stringify([{ hosts, gather_facts: false, roles: [{ role, vars: objectArgs(req.args, 'role') }] }]));
      return this.playbook(name, file, { ...req, args: {}, hosts: [] }, false);
    });
  }

  async runRole(req: RunRequest): Promise<ProcessOutcome> {
    await this.entry('roles', req.name);
    return this.roleRun(req.name, req, `role ${req.name}`);
  }

  async runCollectionRole(collection: string, req: RunRequest): Promise<ProcessOutcome> {
    const item = await this.collectionItem(collection, 'roles', req.name);
    return this.roleRun(item.name, req, `role ${item.name}`);
  }

  private async adHoc(module: string, req: RunRequest, name: string): Promise<ProcessOutcome> {
    return this.withWorkDir(async (_dir, inventoryFile) => {
      const pattern = req.hosts !== undefined && req.hosts.length > 0 ? req.hosts.join(':') : 'localhost';
      const args = objectArgs(req.args, 'module');
      const moduleArgs = Object.entries(args)
        .map(([k, v]) => `${k}=${JSON.stringify(typeof v === 'string' ? v : JSON.stringify(v))}`)
        .join(' ');
      const argv = [pattern, '-i', inventoryFile, '-m', module];
      if (moduleArgs !== '') argv.push('-a', moduleArgs);
      return this.run({ name, command: 'ansible', args: argv, cwd: this.config.dirs.modules, env: this.ansibleEnv() }, req);
    });
  }

  async runModule(req: RunRequest): Promise<ProcessOutcome> {
    await this.entry('modules', req.name);
    return this.adHoc(req.name, req, `module ${req.name}`);
  }

  async runCollectionModule(collection: string, req: RunRequest): Promise<ProcessOutcome> {
    const item = await this.collectionItem(collection, 'modules', req.name);
    return this.adHoc(item.name, req, `module ${item.name}`);
  }

  // ---- executables ----

  private interpreter(file: string): { command: string; args: string[] } {
    if (isExecutable(file)) return { command: file, args: [] };
    if (file.endsWith('.sh')) return { command: '/bin/sh', args: [file] };
    if (file.endsWith('.py')) return { command: 'python3', args: [file] };
    if (file.endsWith('.js') || file.endsWith('.mjs')) return { command: process.execPath, args: [file] };
    throw new AppError('UNPROCESSABLE', `${path.basename(file)} is not executable and has no known interpreter (.sh, .py, .js)`);
  }

  async runScript(req: RunRequest): Promise<ProcessOutcome> {
    const { file } = await this.entry('scripts', req.name);
    const { command, args } = this.interpreter(file);
    return this.run({ name: `script ${req.name}`, command, args: [...args, ...argv(req.args)], cwd: path.dirname(file), env: baseEnv({ ...(req.env ?? {}) }) }, req);
  }

  async runRunnerModule(req: RunRequest): Promise<ProcessOutcome> {
    const { file } = await this.entry('runnerModules', req.name);
    const { command, args } = this.interpreter(file);
    const json = JSON.stringify(req.args ?? {});
    return this.run({ name: `runner module ${req.name}`, command, args, cwd: path.dirname(file), env: baseEnv({ NAP_ARGS: json }), stdin: json }, req);
  }

  // ---- infrastructure as code ----

  /** The IaC program: NAP_GW_IAC_BINARY, else `tofu`, else `terraform` on PATH. */
  iacBinary(): string | undefined {
    return this.config.iacBinary ?? findOnPath('tofu') ?? findOnPath('terraform');
  }

  async runIac(action: 'init' | 'plan' | 'apply' | 'destroy', req: RunRequest): Promise<ProcessOutcome> {
    const { file } = await this.entry('iac', req.name);
    const binary = this.iacBinary();
    if (binary === undefined) throw new AppError('RUNNER_TOOL_MISSING', 'Neither tofu nor terraform is installed (or set NAP_GW_IAC_BINARY)');
    const vars = Object.entries(objectArgs(req.args, 'IaC module')).flatMap(([k, v]) => ['-var', `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`]);
    const args: Record<typeof action, string[]> = {
      init: ['init', '-input=false', '-no-color'],
      plan: ['plan', '-input=false', '-no-color', ...vars],
      apply: ['apply', '-auto-approve', '-input=false', '-no-color', ...vars],
      destroy: ['destroy', '-auto-approve', '-input=false', '-no-color', ...vars],
    };
    const env = baseEnv({ TF_IN_AUTOMATION: '1', TF_INPUT: '0', CHECKPOINT_DISABLE: '1' });
    const outcome = await this.run({ name: `${action} ${req.name}`, command: binary, args: args[action], cwd: file, env }, req);
    if (action === 'apply' && outcome.status === 'success') {
      const outputs = await this.run({ name: `output ${req.name}`, command: binary, args: ['output', '-json', '-no-color'], cwd: file, env }, req);
      if (outputs.result !== undefined) outcome.result = outputs.result;
    }
    return outcome;
  }
}
