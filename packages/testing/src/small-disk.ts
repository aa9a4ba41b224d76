import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The command that runs a program on a small disk of its own: a tmpfs of `sizeMib` mounted at `dir`
 * in a mount namespace of the program's process, so nothing is mounted on the machine and the
 * mount ends with the process. Put it before the program and its arguments; `nsenter -t <pid> -m`
 * reaches the disk from outside (to fill it).
 */
export function onSmallDisk(dir: string, sizeMib: number): string[] {
  return ['unshare', '-m', '--propagation', 'private', 'sh', '-c', `mount -t tmpfs -o size=${sizeMib}m tmpfs "$0" && exec "$@"`, dir];
}

/**
 * True when a process can have a small disk of its own here ({@link onSmallDisk}: root, or a user
 * namespace). When it cannot: under `CI=true` this throws, since CI has what the tests need;
 * elsewhere it warns loudly that `what` is skipped and answers false.
 */
export function smallDiskAvailable(what: string): boolean {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-small-disk-probe-'));
  const [command, ...args] = onSmallDisk(dir, 1);
  const probe = spawnSync(command as string, [...args, 'true'], { encoding: 'utf8' });
  rmSync(dir, { recursive: true, force: true });
  if (probe.status === 0) return true;
  const problem = `a process cannot mount a small disk of its own here (unshare -m; mount -t tmpfs): ${probe.error?.message ?? probe.stderr.trim()}`;
  if (process.env.CI === 'true') throw new Error(problem);
  console.warn(`${'!'.repeat(100)}\n!! SKIPPING ${what}: ${problem}\n${'!'.repeat(100)}`);
  return false;
}
