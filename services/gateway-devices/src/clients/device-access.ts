// How the handlers reach devices: one resolution of connection settings per request, sessions
// through the process-wide limiter.
import { AppError, addSecretTexts, findSecrets, isAppError, secretMask } from '@nap/contracts';
import type { SecretMask } from '@nap/contracts';
import { KEY_MATERIAL, keyPathAdvice, readKeyFile } from './key-files';
import { withNetconfSession } from './netconf-client';
import type { NetconfOptions, NetconfSession } from './netconf-client';
import { withSshSession } from './ssh-session';
import { privateKeyProblem } from './ssh-connection';
import type { SshTarget } from './ssh-connection';
import type { SshSession, SshSessionOptions } from './ssh-session';
import type { GatewayDevicesConfig } from '../config';
import { deviceLimiterKey, optionalInt, optionalString, resolveNetconfSettings, resolveSshSettings } from '../domain/connection-settings';
import type { ConnectionSettings, DeviceRequest, NetconfSettings, SshSettings } from '../domain/connection-settings';
import type { KnownHostsStore } from '../store/known-hosts-repository';
import type { SessionLimiter } from '../domain/session-limiter';
import type { InventoryRepository, ResolvedDevice } from '../store/inventory-repository';

export type { ConnectionOverrides, DeviceRequest } from '../domain/connection-settings';

/** Bounds of a session run. */
export interface SessionRunOptions {
  /** Epoch ms after which the caller no longer waits (the bus deadline). */
  deadline?: number;
}

/** A device resolved for a session: its settings, private key and inventory record. */
export interface ResolvedTarget<S extends ConnectionSettings = ConnectionSettings> {
  settings: S;
  privateKey?: string;
  device?: ResolvedDevice;
}

/**
 * Reaches devices for the handlers: resolves an inventory name or address to connection settings
 * once per request (inventory variables fill what the request leaves out), and runs SSH and NETCONF
 * sessions through the one process-wide limiter and the store-backed known hosts. Requests to one
 * device are served, and answered, in arrival order.
 */
export class DeviceAccess {
  constructor(
    private readonly inventory: InventoryRepository,
    private readonly limiter: SessionLimiter,
    private readonly knownHosts: KnownHostsStore,
    private readonly config: GatewayDevicesConfig,
    /** Told how each device operation ended: `ok`, or the error code (metrics). */
    private readonly outcome: (protocol: 'ssh' | 'netconf', outcome: string) => void = () => undefined,
  ) {}

  /** Updates the limiter after a device was written or deleted. */
  trackSessionLimit(name: string, variables: Record<string, unknown> | undefined): void {
    if (variables === undefined) return;
    this.limiter.setDeviceLimit(deviceLimiterKey(name, variables), optionalInt(variables.gw_session_limit));
  }

  /** Runs `fn` in an SSH session with the device, holding a limiter slot for the session's whole life. */
  async withCli<T>(
    request: DeviceRequest,
    fn: (session: SshSession, target: ResolvedTarget<SshSettings>) => Promise<T>,
    run: SessionRunOptions = {},
  ): Promise<T> {
    const target = await this.resolve(request, resolveSshSettings);
    return credentialsMask(target.device, target.settings).settle(
      this.counted(
        'ssh',
        this.limited(target, run, () => withSshSession(this.sshOptions(target), (s) => fn(s, target))),
      ),
    );
  }

  /** {@link withCli} on an inventory device (addresses refused). */
  withInventoryCli<T>(name: string, fn: (session: SshSession) => Promise<T>, run: SessionRunOptions = {}): Promise<T> {
    return this.withCli({ host: name, inventoryOnly: true }, (session) => fn(session), run);
  }

  /** Runs `fn` in a NETCONF session with the device (port gw_netconf_port, default 830). */
  async withNetconf<T>(request: DeviceRequest, fn: (session: NetconfSession) => Promise<T>, run: SessionRunOptions = {}): Promise<T> {
    const target = await this.resolve(request, resolveNetconfSettings);
    return credentialsMask(target.device, target.settings).settle(
      this.counted(
        'netconf',
        this.limited(target, run, () => withNetconfSession(this.netconfOptions(target), fn)),
      ),
    );
  }

  /**
   * Resolves the device `request` names: the one place a request meets the inventory, for either
   * protocol. Errors: `DEVICE_NOT_FOUND` (inventory only), `DEVICE_CREDENTIALS_MISSING`.
   */
  private async resolve<S extends ConnectionSettings>(
    request: DeviceRequest,
    settingsOf: (request: DeviceRequest, device: ResolvedDevice | undefined, defaults: { connectTimeoutMs: number }) => S,
  ): Promise<ResolvedTarget<S>> {
    const device = await this.inventory.resolve(request.host);
    if (device === undefined && request.inventoryOnly === true) {
      throw new AppError('DEVICE_NOT_FOUND', `No inventory device named "${request.host}"`, { details: { name: request.host } });
    }
    const target: ResolvedTarget<S> = { settings: settingsOf(request, device, { connectTimeoutMs: this.config.connectTimeoutMs }) };
    const key = await this.privateKey(device);
    if (key !== undefined) target.privateKey = key;
    if (device !== undefined) target.device = device;
    return target;
  }

  private async counted<T>(protocol: 'ssh' | 'netconf', work: Promise<T>): Promise<T> {
    try {
      const result = await work;
      this.outcome(protocol, 'ok');
      return result;
    } catch (err) {
      this.outcome(protocol, isAppError(err) ? err.code : 'INTERNAL');
      throw err;
    }
  }

  private limited<T>(target: ResolvedTarget, run: SessionRunOptions, fn: () => Promise<T>): Promise<T> {
    const { limiterKey, sessionLimit } = target.settings;
    return this.limiter.run(limiterKey, fn, {
      ordered: true,
      queueTimeoutMs: this.queueTimeoutMs(run),
      ...(sessionLimit === undefined ? {} : { limit: sessionLimit }),
    });
  }

  private queueTimeoutMs(run: SessionRunOptions): number {
    const untilDeadline = run.deadline === undefined ? Infinity : run.deadline - Date.now() - 250;
    return Math.max(1, Math.min(this.config.sessionQueueTimeoutMs, untilDeadline));
  }

  /** What an SSH login needs, for either protocol. */
  private sshTarget({ settings: s, privateKey }: ResolvedTarget): SshTarget {
    const target: SshTarget = {
      host: s.host,
      port: s.port,
      username: s.username,
      hostKeyChecking: s.hostKeyChecking,
      knownHosts: this.knownHosts,
      readyTimeoutMs: s.connectTimeoutMs,
    };
    if (s.deviceName !== undefined) target.deviceName = s.deviceName;
    if (s.password !== undefined) target.password = s.password;
    if (privateKey !== undefined) target.privateKey = privateKey;
    if (s.passphrase !== undefined) target.passphrase = s.passphrase;
    return target;
  }

  private sshOptions(target: ResolvedTarget<SshSettings>): SshSessionOptions {
    const s = target.settings;
    const options: SshSessionOptions = {
      ...this.sshTarget(target),
      deviceType: s.deviceType,
      promptTimeoutMs: s.connectTimeoutMs,
      mask: credentialsMask(target.device, s),
    };
    if (s.secret !== undefined) options.secret = s.secret;
    if (s.become !== undefined) options.become = s.become;
    return options;
  }

  private netconfOptions(target: ResolvedTarget<NetconfSettings>): NetconfOptions {
    const s = target.settings;
    const options: NetconfOptions = { ...this.sshTarget(target), helloTimeoutMs: s.connectTimeoutMs };
    if (s.rpcTimeoutMs !== undefined) options.rpcTimeoutMs = s.rpcTimeoutMs;
    return options;
  }

  /**
   * The device's private key: `gw_ssh_private_key` (material), or `gw_ssh_private_key_file` (material
   * or an absolute path inside the key directory, `NAP_SSH_KEY_DIR`), checked as the login would use
   * it. Errors: 422 `DEVICE_CREDENTIALS_MISSING` naming the variable. A path outside the key
   * directory (as written, or by the real path of the file opened) is refused saying so; a path that
   * cannot be read and a file that is not a usable key get the same answer: it tells nobody whether
   * a path exists or what the file holds.
   */
  private async privateKey(device: ResolvedDevice | undefined): Promise<string | undefined> {
    const v = device?.variables ?? {};
    const name = device?.name ?? '';
    const passphrase = optionalString(v.gw_ssh_passphrase);
    const material = optionalString(v.gw_ssh_private_key);
    if (material !== undefined) return usableKey(material, passphrase, 'gw_ssh_private_key', name);
    const file = optionalString(v.gw_ssh_private_key_file);
    if (file === undefined) return undefined;
    if (KEY_MATERIAL.test(file)) return usableKey(file, passphrase, 'gw_ssh_private_key_file', name);
    const read = await readKeyFile(file, this.config.sshKeyDir);
    if ('problem' in read && read.problem !== 'unreadable') {
      throw new AppError(
        'DEVICE_CREDENTIALS_MISSING',
        `gw_ssh_private_key_file of device "${name}" ${keyPathAdvice(read.problem, this.config.sshKeyDir)}`,
        { details: { name, variable: 'gw_ssh_private_key_file' } },
      );
    }
    if ('problem' in read || privateKeyProblem(read.text, passphrase) !== undefined) {
      throw new AppError(
        'DEVICE_CREDENTIALS_MISSING',
        `The private key file ${file} (gw_ssh_private_key_file) of device "${name}" cannot be read, or is not a private key SSH can use ` +
          '(OpenSSH or PEM; an encrypted one opened by gw_ssh_passphrase)',
        { details: { name, variable: 'gw_ssh_private_key_file' } },
      );
    }
    return read.text;
  }
}

/**
 * What masks the device's own credentials in what a session gives (its result, its error): the
 * password, enable secret and key passphrase the session ran with (the request's or the
 * inventory's), and every variable of the inventory device that is secret by the platform's
 * policy (`gw_password`, `gw_become_pass`, `gw_ssh_passphrase`, `ansible_password`, …), as they
 * are, JSON-escaped, URL-encoded and in base64; private key material whatever it is. A device that
 * echoes them (a banner, a failed `enable`, a command that prints them) would otherwise put them in
 * a task's result or error, which the job store, its events, answers and logs keep; the workflow
 * service masks the secrets of the task's own values, but never sees the device's.
 */
export function credentialsMask(device: { variables: Record<string, unknown> } | undefined, settings?: Partial<SshSettings>): SecretMask {
  return secretMask(addSecretTexts(findSecrets(device?.variables ?? {}), settings?.password, settings?.secret, settings?.passphrase));
}

/** `key` when the login can use it; otherwise 422 `DEVICE_CREDENTIALS_MISSING` naming the variable that holds it. */
function usableKey(key: string, passphrase: string | undefined, variable: string, name: string): string {
  const problem = privateKeyProblem(key, passphrase);
  if (problem === undefined) return key;
  const why =
    problem === 'passphrase-missing'
      ? 'is an encrypted private key and the device has no gw_ssh_passphrase to open it'
      : problem === 'passphrase-wrong'
        ? 'is an encrypted private key that gw_ssh_passphrase does not open'
        : 'is not a private key SSH can use: give an OpenSSH or PEM private key';
  throw new AppError('DEVICE_CREDENTIALS_MISSING', `${variable} of device "${name}" ${why}`, { details: { name, variable } });
}
