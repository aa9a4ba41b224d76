import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sleep } from '@nap/util';

/**
 * Machine-wide state of the lab (locks, the lab user's password); shared by every jest worker and
 * every run on the machine. Not under TMPDIR, which a run may set to a directory of its own (the
 * suites' tmpfs, test/memory-tmpdir.cjs): the lab user is the machine's, and a run that kept its
 * password elsewhere set a new one under the others' feet.
 */
export const LAB_STATE_DIR = '/tmp/nap-lab';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `fn` holding a lock shared by every process on the machine (a directory created with mkdir,
 * which is atomic). Jest workers are separate processes, so in-process mutexes are not enough for
 * apt-get (dpkg has one lock) or useradd/chpasswd (one /etc/shadow). A lock whose owner died is
 * taken over. Waits at most `timeoutMs`, then fails naming the lock and its owner.
 */
export async function withMachineLock<T>(name: string, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  await mkdir(LAB_STATE_DIR, { recursive: true, mode: 0o700 });
  const dir = join(LAB_STATE_DIR, `${name}.lock`);
  const ownerFile = join(dir, 'owner');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await mkdir(dir);
      await writeFile(ownerFile, String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number((await readFile(ownerFile, 'utf8').catch(() => '')).trim());
      const ownerDied = Number.isInteger(owner) && owner > 0 && !isAlive(owner);
      // No owner recorded for long: the owner died between mkdir and writing its pid.
      const orphaned = !(owner > 0) && Date.now() - ((await stat(dir).catch(() => undefined))?.mtimeMs ?? Date.now()) > 10_000;
      if (ownerDied || orphaned) {
        await rm(dir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(`Timed out after ${timeoutMs} ms waiting for the lab lock ${dir} (held by pid ${owner || 'unknown'})`);
      }
      // The owner file is written just after mkdir; an empty one means the owner is mid-way.
      await sleep(50);
    }
  }
  try {
    return await fn();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
