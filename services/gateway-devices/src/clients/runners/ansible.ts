import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppError, HOST_KEY_CHECKING, addFoundSecrets, findSecrets, knownHostsKey, noSecrets, secretMask } from '@nap/contracts';
import type { FoundSecrets, HostKeyChecking } from '@nap/contracts';
import { KEY_MATERIAL, isKeyFileVariable, keyPathAdvice, readKeyFile } from '../key-files';
import { findOnPath } from '../process-run';
import { checkHostKey, scanHostKey } from '../ssh-connection';
import { hostKeyCheckingOf } from '../../domain/device-variables';
import { knownHostsLine } from '../../domain/known-hosts';
import type { KnownHostsStore } from '../../store/known-hosts-repository';
import type { ProcessOutcome } from '../process-run';
import type { GatewayDevicesConfig } from '../../config';
import type { InventoryRepository, ResolvedDevice } from '../../store/inventory-repository';
import type { RunnerCatalog } from './catalog';
import { baseEnv, objectArgs, requestSecrets } from './runs';
import type { RunProgram, RunRequest } from './runs';
import { ownValue, setOwn } from '@nap/util';

/** How long reading a device's host key before a run may take, ms. */
const HOST_KEY_SCAN_TIMEOUT_MS = 5_000;

/**
 * Ansible variables a device may not set: they name programs, interpreters or options the platform's
 * own host runs (`ansible_python_interpreter`, `ansible_ssh_extra_args: -o ProxyCommand=…`,
 * `ansible_paramiko_proxy_command`, `ansible_become_exe`, `ansible_winrm_kinit_cmd`, …), or turn off
 * the host key checking the platform sets for each run (`ansible_paramiko_host_key_checking`, …).
 * Anyone who may write a device could otherwise run any command there.
 */
const HOST_SIDE_VARIABLE =
  /^ansible_(?:.*_)?(?:interpreter|executable|exe|flags|args|proxy_command|ssh_config|kinit_cmd|host_key_checking|host_key_auto_add|look_for_keys|record_host_keys|pkcs11_provider|control_path|control_path_dir)$/i;

/**
 * Whether a device variable is one Ansible would act on at the platform's own host (see
 * {@link HOST_SIDE_VARIABLE}; `ansible_ssh_pkcs11_provider` loads a shared library there, the control
 * path places a socket), so it is left out of every run's inventory.
 */
export function isHostSideVariable(name: string): boolean {
  return HOST_SIDE_VARIABLE.test(name);
}

/** Where Jinja2 (as Ansible configures it) starts an expression, a statement or a comment. */
const JINJA_DELIMITER = /\{\{|\{%|\{#/;

/**
 * Every string of `value` marked unsafe for Ansible: `{"__ansible_unsafe": "…"}`, which Ansible's JSON
 * reader (inventory, `-e @file`, plays, `-a {…}`) turns into text it never templates. Unmarked,
 * `{{ lookup('pipe', '…') }}` in a device variable or a run argument runs a command on the
 * platform's host.
 */
export function ansibleUnsafe(value: unknown): unknown {
  if (typeof value === 'string') return { __ansible_unsafe: value };
  if (Array.isArray(value)) return value.map(ansibleUnsafe);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, k, ansibleUnsafe(v));
    return out;
  }
  return value;
}

/**
 * Maps an inventory device to Ansible host variables (its own variables are kept as given, but for
 * {@link HOST_SIDE_VARIABLE} and the key files, which `keyFiles` replaces by the run's copies), unsafe.
 */
function ansibleHostVars(device: ResolvedDevice, keyFiles: Record<string, string>): Record<string, unknown> {
  const v = device.variables;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(v)) if (!isHostSideVariable(name) && !isKeyFileVariable(name)) setOwn(out, name, value);
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
  ];
  for (const [from, to] of map) if (v[from] !== undefined && ownValue(out, to) === undefined) setOwn(out, to, v[from]);
  for (const [name, file] of Object.entries(keyFiles)) setOwn(out, name, file);
  return ansibleUnsafe(out) as Record<string, unknown>;
}

/**
 * Ansible runs: playbooks (`ansible-playbook`), modules ad hoc (`ansible -m`) and roles (a generated
 * play), with an inventory of the gateway's devices written for the run and removed after it.
 */
export class AnsibleRunner {
  constructor(
    private readonly config: GatewayDevicesConfig,
    private readonly catalog: RunnerCatalog,
    private readonly inventory: InventoryRepository,
    private readonly run: RunProgram,
    private readonly knownHosts: KnownHostsStore,
  ) {}

  /** Runs a playbook of the playbooks directory, in check mode when `check`. */
  async runPlaybook(req: RunRequest, check: boolean): Promise<ProcessOutcome> {
    const { file } = await this.catalog.find('playbooks', req.name);
    return this.playbook(`playbook ${req.name}`, file, req, check);
  }

  /** Runs a role of the roles directory on `hosts` (localhost when absent). */
  async runRole(req: RunRequest): Promise<ProcessOutcome> {
    await this.catalog.find('roles', req.name);
    return this.roleRun(req.name, req, `role ${req.name}`);
  }

  /** Runs a role of a collection. */
  async runCollectionRole(collection: string, req: RunRequest): Promise<ProcessOutcome> {
    const item = await this.catalog.collectionItem(collection, 'roles', req.name);
    return this.roleRun(item.name, req, `role ${item.name}`);
  }

  /** Runs a module of the modules directory ad hoc on `hosts` (localhost when absent). */
  async runModule(req: RunRequest): Promise<ProcessOutcome> {
    await this.catalog.find('modules', req.name);
    return this.adHoc(req.name, req, `module ${req.name}`);
  }

  /** Runs a module of a collection ad hoc. */
  async runCollectionModule(collection: string, req: RunRequest): Promise<ProcessOutcome> {
    const item = await this.catalog.collectionItem(collection, 'modules', req.name);
    return this.adHoc(item.name, req, `module ${item.name}`);
  }

  private env(dir: string): NodeJS.ProcessEnv {
    return baseEnv({
      // paramiko (network_cli) reads ~/.ssh/known_hosts: the run's own, written from the platform's store
      HOME: dir,
      ANSIBLE_NOCOLOR: '1',
      ANSIBLE_RETRY_FILES_ENABLED: '0',
      ANSIBLE_HOST_KEY_CHECKING: 'True',
      ANSIBLE_LIBRARY: this.config.dirs.modules,
      ANSIBLE_ROLES_PATH: this.config.dirs.roles,
      ANSIBLE_COLLECTIONS_PATH: this.config.dirs.collections,
      ANSIBLE_COLLECTIONS_PATHS: this.config.dirs.collections,
      ANSIBLE_STDOUT_CALLBACK: 'json',
      ANSIBLE_LOAD_CALLBACK_PLUGINS: '1',
      ANSIBLE_DEPRECATION_WARNINGS: 'False',
      ANSIBLE_LOCALHOST_WARNING: 'False',
    });
  }

  /**
   * A temp dir with an inventory of the gateway's devices and a known_hosts file of the platform's
   * trusted host keys (mode 0600, removed after the run). Ansible checks host keys against that file
   * (OpenSSH with StrictHostKeyChecking=yes, paramiko through HOME), never accepting an unknown key:
   * keys of the targeted devices that the store does not hold yet are read first and checked as SSH
   * sessions check them (trust on first use, strict, or off per device). `fn` gives the runs the
   * secret variables of the inventory's devices (`secrets`), which mask them in the output they keep
   * before any of it is cut; what `fn` gives, and its failure, have them masked too.
   */
  private async withWorkDir<T>(
    targets: readonly string[],
    fn: (dir: string, inventoryFile: string, secrets: FoundSecrets) => Promise<T>,
  ): Promise<T> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'nap-gw-run-'));
    try {
      const knownHostsFile = path.join(dir, '.ssh', 'known_hosts');
      await mkdir(path.dirname(knownHostsFile), { recursive: true, mode: 0o700 });
      const lines: string[] = [];
      const devices = await this.inventory.listByNames(undefined);
      const hosts: Record<string, Record<string, unknown>> = {
        localhost: { ansible_connection: 'local', ansible_python_interpreter: findOnPath('python3', '/usr/bin:/bin') ?? 'python3' },
      };
      const children: Record<string, { hosts: Record<string, Record<string, never>> }> = {};
      const secrets = noSecrets();
      for (const doc of devices) {
        // a name is an inventory key, which Ansible templates (`{{ inventory_hostname }}`) and no
        // marker can make text: a device or group named with template delimiters is left out
        if (JINJA_DELIMITER.test(doc.name)) continue;
        const device = await this.inventory.resolve(doc.name);
        if (device === undefined) continue;
        const targeted = targets.includes(device.name) || device.groups.some((g) => targets.includes(g)) || targets.includes('all');
        const keyFiles = await this.keyFiles(device, path.join(dir, 'keys'), targeted);
        if (keyFiles === undefined) continue;
        findSecrets(device.variables, secrets);
        const vars = ansibleHostVars(device, keyFiles);
        const checking = hostKeyCheckingOf(device.variables.host_key_checking);
        const line = await this.knownHostsLine(device, checking, targeted);
        if (line !== undefined) lines.push(line);
        vars.ansible_host_key_checking = checking !== HOST_KEY_CHECKING.OFF;
        vars.ansible_ssh_common_args = `-o UserKnownHostsFile=${knownHostsFile} -o GlobalKnownHostsFile=/dev/null -o StrictHostKeyChecking=${checking === HOST_KEY_CHECKING.OFF ? 'no' : 'yes'}`;
        setOwn(hosts, device.name, vars);
        // own members only: a group named constructor or __proto__ is a group like any other
        for (const group of device.groups) {
          if (JINJA_DELIMITER.test(group)) continue;
          let child = ownValue(children, group);
          if (child === undefined) setOwn(children, group, (child = { hosts: {} }));
          setOwn(child.hosts, device.name, {});
        }
      }
      await writeFile(knownHostsFile, lines.length > 0 ? `${lines.join('\n')}\n` : '', { mode: 0o600 });
      const inventoryFile = path.join(dir, 'inventory.json');
      await writeFile(inventoryFile, JSON.stringify({ all: { hosts, children } }), { mode: 0o600 });
      // every device of the inventory, targeted or not: a play can print any host's variables
      // (`debug: var=hostvars`, `-vvv` shows `ansible_password`)
      return await secretMask(secrets).settle(fn(dir, inventoryFile, secrets));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * The device's key files (`gw_ssh_private_key_file` as `ansible_ssh_private_key_file`, and Ansible's
   * own `ansible_*_key_file` variables), each copied into the run's directory (mode 0600) from inside
   * the key directory, or written there when the variable holds the key itself: Ansible then reads
   * the copy checked here, never a path that could be swapped for a symlink meanwhile. A key file
   * outside the key directory or unreadable: 422 `DEVICE_CREDENTIALS_MISSING` when the run targets
   * the device; otherwise the device is left out of the run (undefined): it cannot be reached as written.
   */
  private async keyFiles(device: ResolvedDevice, keysDir: string, targeted: boolean): Promise<Record<string, string> | undefined> {
    const keyDir = this.config.sshKeyDir;
    const out: Record<string, string> = {};
    // Ansible's own variables first: as before, one given wins over the gw_ variable
    const names = Object.keys(device.variables)
      .filter(isKeyFileVariable)
      .sort((a, b) => Number(a === 'gw_ssh_private_key_file') - Number(b === 'gw_ssh_private_key_file'));
    for (const variable of names) {
      const value = device.variables[variable];
      const to = variable === 'gw_ssh_private_key_file' ? 'ansible_ssh_private_key_file' : variable;
      if (typeof value !== 'string' || ownValue(out, to) !== undefined) continue;
      let text: string;
      if (KEY_MATERIAL.test(value)) text = value;
      else {
        const read = await readKeyFile(value, keyDir);
        if ('problem' in read) {
          if (!targeted) return undefined;
          throw new AppError(
            'DEVICE_CREDENTIALS_MISSING',
            read.problem === 'unreadable'
              ? `The private key file ${value} (${variable}) of device "${device.name}" cannot be read`
              : `${variable} of device "${device.name}" ${keyPathAdvice(read.problem, keyDir)}`,
            { details: { name: device.name, variable } },
          );
        }
        text = read.text;
      }
      await mkdir(keysDir, { recursive: true, mode: 0o700 });
      const copy = path.join(keysDir, randomUUID());
      // OpenSSH refuses a key whose last line has no newline
      await writeFile(copy, text.endsWith('\n') ? text : `${text}\n`, { mode: 0o600, flag: 'wx' });
      setOwn(out, to, copy);
    }
    return out;
  }

  /**
   * The known_hosts line of a device's trusted key; when the store lacks it and the run targets the
   * device, the key is read from the device and checked first.
   */
  private async knownHostsLine(device: ResolvedDevice, checking: HostKeyChecking, mayScan: boolean): Promise<string | undefined> {
    const v = device.variables;
    const connection = typeof v.gw_connection === 'string' ? v.gw_connection : undefined;
    if (checking === HOST_KEY_CHECKING.OFF || connection === 'local' || typeof v.gw_host !== 'string') return undefined;
    const port = Number(v.gw_port ?? 22) || 22;
    const hostPort = knownHostsKey(v.gw_host, port);
    let key = await this.knownHosts.keyOf?.(hostPort);
    if (key === undefined) {
      if (!mayScan) return undefined;
      const presented = await scanHostKey(v.gw_host, port, HOST_KEY_SCAN_TIMEOUT_MS);
      // unreachable, unknown under strict, or changed: no line, so Ansible refuses that host
      if (presented === undefined || (await checkHostKey(this.knownHosts, hostPort, presented, checking)) !== undefined) return undefined;
      key = presented;
    }
    return knownHostsLine(v.gw_host, port, key);
  }

  /**
   * `targets`: the devices or groups the play runs on, whose host keys the run's known_hosts needs;
   * `given`: secrets the play file holds besides the arguments (the variables of a generated role play).
   */
  private async playbook(
    name: string,
    file: string,
    req: RunRequest,
    check: boolean,
    targets: readonly string[] = req.hosts ?? [],
    given: FoundSecrets = noSecrets(),
  ): Promise<ProcessOutcome> {
    return this.withWorkDir(targets, async (dir, inventoryFile, inventorySecrets) => {
      const secrets = addFoundSecrets(noSecrets(inventorySecrets), given);
      const extra = path.join(dir, 'extra-vars.json');
      await writeFile(extra, JSON.stringify(ansibleUnsafe(objectArgs(req.args, 'playbook'))), { mode: 0o600 });
      const args = ['-i', inventoryFile, file, '-e', `@${extra}`];
      // one argument: a pattern that starts with "-" is no option
      if (req.hosts !== undefined && req.hosts.length > 0) args.push(`--limit=${req.hosts.join(':')}`);
      if (check) args.push('--check');
      return this.run({ name, command: 'ansible-playbook', args, cwd: path.dirname(file), env: this.env(dir), secrets }, req);
    });
  }

  private async roleRun(role: string, req: RunRequest, name: string): Promise<ProcessOutcome> {
    return this.withWorkDir([], async (dir) => {
      const file = path.join(dir, 'role.yml');
      const hosts = req.hosts !== undefined && req.hosts.length > 0 ? req.hosts.join(':') : 'localhost';
      // JSON is YAML: the generated play needs no YAML writer.
      await writeFile(
        file,
        JSON.stringify([
          { hosts: ansibleUnsafe(hosts), gather_facts: false, roles: [{ role, vars: ansibleUnsafe(objectArgs(req.args, 'role')) }] },
        ]),
      );
      // the role's variables are in the play, no longer arguments of the run: their secrets go with it
      return this.playbook(name, file, { ...req, args: {}, hosts: [] }, false, req.hosts ?? [], requestSecrets({ args: req.args }));
    });
  }

  private async adHoc(module: string, req: RunRequest, name: string): Promise<ProcessOutcome> {
    return this.withWorkDir(req.hosts ?? [], async (dir, inventoryFile, secrets) => {
      const pattern = req.hosts !== undefined && req.hosts.length > 0 ? req.hosts.join(':') : 'localhost';
      const args = objectArgs(req.args, 'module');
      // JSON (not key=value pairs, whose keys could add arguments), its strings unsafe; the pattern
      // after "--", so that a host named "--vault-password-file=…" is no option
      const command = ['-i', inventoryFile, '-m', module];
      if (Object.keys(args).length > 0) command.push('-a', JSON.stringify(ansibleUnsafe(args)));
      command.push('--', pattern);
      return this.run({ name, command: 'ansible', args: command, cwd: this.config.dirs.modules, env: this.env(dir), secrets }, req);
    });
  }
}
