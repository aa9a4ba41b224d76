import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureLabPackages, requireRoot } from './ensure';
import { isRunning, spawnTracked, stopChild, tailFile, waitUntil } from '@nap/testing';
import { startSshd } from './sshd';
import type { LabSshd, SshdOptions } from './sshd';

/** What `startNetconfd` needs from the sshd it serves; a {@link LabSshd} has it all. */
export interface NetconfdTarget {
  /** The sshd port: netconfd drops sessions arriving through any other port ("access denied"). */
  readonly port: number;
  /** Becomes netconfd's `--superuser`, which bypasses NACM. */
  readonly username: string;
  /** The socket the sshd's `Subsystem netconf` line points netconf-subsystem at. */
  readonly netconfSocketPath: string;
  /** A dir for netconfd's home (txid file) and log; the sshd's temp dir. */
  readonly dir: string;
}

/** Options of {@link startNetconfd}. */
export interface NetconfdOptions {
  /** How long to wait until the agent listens; default 15 s. */
  startTimeoutMs?: number;
  /** Extra command-line arguments, appended last (e.g. `--target=running`). */
  args?: readonly string[];
}

/** A yuma123 netconfd agent serving one lab sshd. */
export interface LabNetconfd {
  readonly socketPath: string;
  readonly logFile: string;
  logTail(): Promise<string>;
  /** Stops the agent (SIGTERM; it takes about a second); idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts yuma123 `netconfd` for one lab sshd: `--superuser=<user> --no-startup --port=<sshd port>`,
 * plus `--ncxserver-sockname=<socket in the sshd's dir>` and `--yuma-home=<dir>/yuma`.
 *
 * Sharing: LAB.md describes one agent per machine on /tmp/ncxserver.sock. yuma123 2.13 also takes
 * `--ncxserver-sockname` (and netconf-subsystem `--ncxserver-sockname=<port>@<socket>`), so instead of
 * a machine-wide agent with a lock and reference counts, every sshd gets its own agent on its own
 * socket. Jest workers and test files then share nothing (no port allow-list to agree on, no datastore
 * edits leaking between tests, no agent to stop last), and /tmp/ncxserver.sock stays free for anyone
 * using the default. Needs root; installs netconfd when missing.
 */
export async function startNetconfd(target: NetconfdTarget, options: NetconfdOptions = {}): Promise<LabNetconfd> {
  await ensureLabPackages(['netconfd']);
  requireRoot('start netconfd');
  const home = join(target.dir, 'yuma');
  // netconfd writes <home>/data/startup-cfg-txid.txt at start and fails ("Open txid file for write
  // failed") when the directory is missing.
  await mkdir(join(home, 'data'), { recursive: true });
  const logFile = join(target.dir, 'netconfd.log');
  await rm(target.netconfSocketPath, { force: true });
  const child = spawnTracked('/usr/sbin/netconfd', [
    `--superuser=${target.username}`,
    '--no-startup',
    `--port=${target.port}`,
    `--ncxserver-sockname=${target.netconfSocketPath}`,
    `--yuma-home=${home}`,
    `--log=${logFile}`,
    '--log-level=info',
    ...(options.args ?? []),
  ]);
  try {
    await waitUntil(
      `netconfd for sshd port ${target.port}`,
      async () =>
        (await stat(target.netconfSocketPath).then(
          (s) => s.isSocket(),
          () => false,
        )) && /Running netconfd server/.test(await tailFile(logFile)),
      {
        timeoutMs: options.startTimeoutMs ?? 15_000,
        dead: () => !isRunning(child),
        diagnostics: async () => `netconfd log (${logFile}):\n${await tailFile(logFile)}`,
      },
    );
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  let stopped = false;
  return {
    socketPath: target.netconfSocketPath,
    logFile,
    logTail: () => tailFile(logFile),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await stopChild(child);
    },
  };
}

/** An sshd with its own netconfd: what a NETCONF test needs. */
export interface NetconfLab {
  readonly sshd: LabSshd;
  readonly netconfd: LabNetconfd;
  /** Stops netconfd, then sshd (which removes the shared temp dir). */
  stop(): Promise<void>;
}

/** Starts an sshd and a netconfd serving it. */
export async function startNetconfLab(options: { sshd?: SshdOptions; netconfd?: NetconfdOptions } = {}): Promise<NetconfLab> {
  const sshd = await startSshd(options.sshd);
  try {
    const netconfd = await startNetconfd(sshd, options.netconfd);
    return {
      sshd,
      netconfd,
      stop: async () => {
        await netconfd.stop();
        await sshd.stop();
      },
    };
  } catch (err) {
    await sshd.stop();
    throw err;
  }
}
