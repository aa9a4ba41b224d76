import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { isExecutable } from '@nap/testing';
import { withMachineLock } from './lock';

const run = promisify(execFile);

/** Debian packages the lab can install, and the files that prove each one is there. */
export const LAB_PACKAGES = {
  'openssh-server': ['/usr/sbin/sshd', '/usr/bin/ssh-keygen'],
  netconfd: ['/usr/sbin/netconfd', '/usr/sbin/netconf-subsystem'],
  // Runners of the device gateway (playbooks, modules, roles, collections).
  'ansible-core': ['/usr/bin/ansible-playbook', '/usr/bin/ansible'],
} as const;

/** A package of {@link LAB_PACKAGES}. */
export type LabPackage = keyof typeof LAB_PACKAGES;

/** True when this process runs as root (useradd, sshd on behalf of other users, netconfd need it). */
export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** Packages of the list whose files are missing. */
export function missingPackages(packages: readonly LabPackage[]): LabPackage[] {
  return packages.filter((name) => LAB_PACKAGES[name].some((file) => !isExecutable(file)));
}

const installed = new Set<LabPackage>();

/**
 * Makes sure the Debian packages the lab needs are installed: when one is missing and this process is
 * root, runs `apt-get update -qq && apt-get install -y -qq <packages>` (once per machine at a time,
 * under a machine-wide lock, since dpkg has a single lock for all jest workers). Throws an error that
 * names the package and the command to run when it cannot install (not root, or apt-get failed).
 */
export async function ensureLabPackages(packages: readonly LabPackage[] = ['openssh-server', 'netconfd']): Promise<void> {
  const wanted = packages.filter((p) => !installed.has(p));
  if (missingPackages(wanted).length > 0) {
    if (!isRoot()) {
      const missing = missingPackages(wanted);
      throw new Error(
        `The device lab needs the Debian package(s) ${missing.join(', ')} (missing: ${missing
          .flatMap((p) => LAB_PACKAGES[p])
          .filter((f) => !isExecutable(f))
          .join(', ')}) ` +
          `and this process is not root, so it cannot install them: run \`apt-get install -y ${missing.join(' ')}\` as root`,
      );
    }
    await withMachineLock('apt', 15 * 60_000, async () => {
      const missing = missingPackages(wanted);
      if (missing.length === 0) return;
      try {
        await run('apt-get', ['update', '-qq'], {
          env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
          maxBuffer: 64 * 1024 * 1024,
        });
        await run('apt-get', ['install', '-y', '-qq', ...missing], {
          env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
          maxBuffer: 64 * 1024 * 1024,
        });
      } catch (err) {
        const stderr = (err as { stderr?: string }).stderr ?? '';
        throw new Error(
          `Installing the Debian package(s) ${missing.join(', ')} for the device lab failed: ${stderr.trim().slice(-2000) || String(err)}`,
          { cause: err },
        );
      }
    });
    const still = missingPackages(wanted);
    if (still.length > 0) {
      throw new Error(
        `apt-get ran but the Debian package(s) ${still.join(', ')} still miss files: ${still
          .flatMap((p) => LAB_PACKAGES[p])
          .filter((f) => !isExecutable(f))
          .join(', ')}`,
      );
    }
  }
  for (const p of wanted) installed.add(p);
}

/** Throws, naming what needs root, unless this process is root. */
export function requireRoot(what: string): void {
  if (!isRoot()) {
    throw new Error(`The device lab must run as root to ${what}; run the tests as root, as CI does`);
  }
}
