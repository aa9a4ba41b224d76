import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureLabPackages, requireRoot } from './ensure';
import { LAB_STATE_DIR, withMachineLock } from './lock';
import { canConnect, freePort, isRunning, spawnTracked, stopChild, tailFile, waitUntil } from '@nap/testing';

const run = promisify(execFile);

/** The one login account of the lab, created once per machine and shared by every sshd. */
export const LAB_USER = 'naplab';

/** Options of {@link startSshd}. */
export interface SshdOptions {
  /** How long to wait until sshd accepts connections; default 15 s. */
  startTimeoutMs?: number;
  /** Extra `sshd_config` lines, appended last. */
  extraConfig?: readonly string[];
}

/** A private OpenSSH sshd on loopback, owned by one test file. */
export interface LabSshd {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** {@link LAB_USER}. */
  readonly username: string;
  readonly password: string;
  /** `SHA256:…` of the host key, as `ssh-keygen -lf` prints it and ssh2 presents it. */
  readonly hostKeyFingerprint: string;
  /** Temp dir with config, host key, pid file and log; removed by `stop()`. */
  readonly dir: string;
  /**
   * The UNIX socket the `netconf` subsystem of this sshd connects to: pass this sshd to
   * `startNetconfd` to serve it. Inside `dir`, which is world-traversable because
   * netconf-subsystem runs as the logged-in user.
   */
  readonly netconfSocketPath: string;
  readonly logFile: string;
  /** The end of sshd's log, for failure messages. */
  logTail(): Promise<string>;
  /** Stops sshd and removes its temp dir; idempotent. */
  stop(): Promise<void>;
}

let labUser: Promise<{ username: string; password: string }> | undefined;

/**
 * Creates the lab user once per machine (`useradd -m` + `chpasswd` with a random password kept in a
 * root-only file under the lab state dir), under a machine-wide lock because jest workers race and
 * useradd fails while another holds /etc/passwd. Later calls, in any process, reuse user and password.
 */
export function ensureLabUser(): Promise<{ username: string; password: string }> {
  labUser ??= (async () => {
    requireRoot(`create the lab user "${LAB_USER}"`);
    return withMachineLock('user', 60_000, async () => {
      const secretFile = join(LAB_STATE_DIR, `${LAB_USER}.password`);
      let password = (await readFile(secretFile, 'utf8').catch(() => '')).trim();
      const exists = await run('id', ['-u', LAB_USER]).then(
        () => true,
        () => false,
      );
      if (!exists) await run('useradd', ['-m', '-s', '/bin/bash', LAB_USER]);
      if (!exists || password === '') {
        password = randomBytes(18).toString('base64url');
        await new Promise<void>((resolve, reject) => {
          const child = execFile('chpasswd', (err) => (err === null ? resolve() : reject(err)));
          child.stdin?.end(`${LAB_USER}:${password}\n`);
        });
        await writeFile(secretFile, password, { mode: 0o600 });
      }
      return { username: LAB_USER, password };
    });
  })();
  labUser.catch(() => {
    labUser = undefined;
  });
  return labUser;
}

/** The OpenSSH fingerprint of a `.pub` file's key. */
export function fingerprintOfPublicKey(pubLine: string): string {
  const blob = Buffer.from(pubLine.trim().split(/\s+/)[1] ?? '', 'base64');
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/**
 * Starts a real OpenSSH sshd on a free port of 127.0.0.1 with a config and host key of its own in a
 * temp dir, password logins through PAM for the lab user, and the `netconf` subsystem pointed at a
 * socket in that dir. Installs openssh-server when missing (as root) and needs root to run.
 */
export async function startSshd(options: SshdOptions = {}): Promise<LabSshd> {
  await ensureLabPackages(['openssh-server']);
  requireRoot('start sshd with password logins');
  const user = await ensureLabUser();
  // Privilege separation directory; the Debian package creates it only at service start.
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  const dir = await mkdtemp(join(tmpdir(), 'nap-sshd-'));
  await chmod(dir, 0o755);
  const hostKey = join(dir, 'ssh_host_ed25519_key');
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'nap-lab', '-f', hostKey]);
  const hostKeyFingerprint = fingerprintOfPublicKey(await readFile(`${hostKey}.pub`, 'utf8'));
  const logFile = join(dir, 'sshd.log');
  const configFile = join(dir, 'sshd_config');
  const netconfSocketPath = join(dir, 'ncxserver.sock');
  const startTimeoutMs = options.startTimeoutMs ?? 15_000;

  // The port is free when picked but another worker may take it before sshd binds: retry on a new one.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    await writeFile(
      configFile,
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${hostKey}`,
        `PidFile ${join(dir, 'sshd.pid')}`,
        'PasswordAuthentication yes',
        'KbdInteractiveAuthentication no',
        'PubkeyAuthentication yes',
        'UsePAM yes',
        'PermitRootLogin no',
        `AllowUsers ${user.username}`,
        'UseDNS no',
        'PrintMotd no',
        'StrictModes no',
        // Many parallel logins from one test (limiter, benchmark) must not be throttled.
        'MaxStartups 200:30:400',
        'MaxSessions 50',
        'LogLevel VERBOSE',
        // netconf-subsystem takes port@socket pairs, so each sshd reaches its own netconfd.
        `Subsystem netconf "/usr/sbin/netconf-subsystem --ncxserver-sockname=${port}@${netconfSocketPath}"`,
        ...(options.extraConfig ?? []),
        '',
      ].join('\n'),
    );
    await rm(logFile, { force: true });
    const child = spawnTracked('/usr/sbin/sshd', ['-D', '-f', configFile, '-E', logFile]);
    try {
      await waitUntil(`sshd on 127.0.0.1:${port}`, () => canConnect(port), {
        timeoutMs: startTimeoutMs,
        dead: () => !isRunning(child),
        diagnostics: async () => `sshd log (${logFile}):\n${await tailFile(logFile)}`,
      });
    } catch (err) {
      await stopChild(child);
      const log = await tailFile(logFile);
      if (attempt < 5 && /Address already in use|Cannot bind any address/.test(log)) continue;
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
    let stopped = false;
    return {
      host: '127.0.0.1',
      port,
      username: user.username,
      password: user.password,
      hostKeyFingerprint,
      dir,
      netconfSocketPath,
      logFile,
      logTail: () => tailFile(logFile),
      stop: async () => {
        if (stopped) return;
        stopped = true;
        await stopChild(child);
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
}
