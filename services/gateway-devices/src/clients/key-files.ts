// Private key files named by device variables: only those inside the key directory
// (NAP_SSH_KEY_DIR) are read, by the real path of what was opened.
import { constants } from 'node:fs';
import { open, readlink, realpath, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';

/** Largest private key file read (an RSA 16384-bit key in PEM is about 13 KiB). */
const MAX_KEY_FILE_BYTES = 64 * 1024;

/** Key material given in place of a path. */
export const KEY_MATERIAL = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;

/**
 * The device variables that name a private key file the platform's host reads: ours, and Ansible's
 * own (`ansible_ssh_private_key_file`, `ansible_private_key_file`, `ansible_paramiko_private_key_file`,
 * `ansible_winrm_cert_key_pem`, `ansible_psrp_certificate_key_pem`, …). Left unchecked, anyone who may
 * write a device could have the platform log in with any file it can read.
 */
export function isKeyFileVariable(name: string): boolean {
  return name === 'gw_ssh_private_key_file' || /^ansible_(?:.*_)?key_(?:file|pem)$/i.test(name);
}

/** True when `file` (absolute, resolved) lies strictly below `dir`. */
function isInside(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/** The key directory by its real path (symlinks followed); as configured while it does not exist. */
async function realKeyDir(keyDir: string): Promise<string> {
  return realpath(keyDir).catch(() => path.resolve(keyDir));
}

/** Why a key file path is refused, or undefined. */
export type KeyPathProblem = 'not-absolute' | 'outside';

/**
 * What is wrong with `file` as written, as far as can be known before it is read: not absolute, or
 * outside `keyDir` by its path or, when it exists, by its real path. Never tells whether the file
 * exists: a path outside is refused whether or not it does.
 */
export async function keyPathProblem(file: string, keyDir: string): Promise<KeyPathProblem | undefined> {
  if (!path.isAbsolute(file)) return 'not-absolute';
  const dir = await realKeyDir(keyDir);
  const given = path.resolve(file);
  if (!isInside(given, path.resolve(keyDir)) && !isInside(given, dir)) return 'outside';
  const real = await realpath(given).catch(() => undefined);
  if (real !== undefined && !isInside(real, dir)) return 'outside';
  return undefined;
}

/** A key file read: its text, or why not (`unreadable` says nothing of whether the file exists). */
export type KeyFileRead = { text: string } | { problem: KeyPathProblem | 'unreadable' };

/**
 * Reads the key file `file` if it lies inside `keyDir`: the path as given, and then the real path of
 * the file actually opened (read back from the open descriptor, so a symlink swapped in between is
 * caught), must be inside. Unreadable also when it is not a regular file (a FIFO or /dev/zero would
 * block or never end) or is larger than a key.
 */
export async function readKeyFile(file: string, keyDir: string): Promise<KeyFileRead> {
  const problem = await keyPathProblem(file, keyDir);
  if (problem !== undefined) return { problem };
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const opened = await openedPath(handle, file);
    if (opened === undefined || !isInside(opened, await realKeyDir(keyDir))) return { problem: 'outside' };
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_KEY_FILE_BYTES) return { problem: 'unreadable' };
    return { text: await handle.readFile('utf8') };
  } catch {
    return { problem: 'unreadable' };
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * The real path of the file behind `handle`: Linux names it in /proc/self/fd. Elsewhere the real
 * path of `file`, accepted only when it is the very file opened (same device and inode).
 */
async function openedPath(handle: FileHandle, file: string): Promise<string | undefined> {
  const named = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
  if (named !== undefined && path.isAbsolute(named)) return named;
  const real = await realpath(file).catch(() => undefined);
  if (real === undefined) return undefined;
  const [a, b] = await Promise.all([handle.stat(), stat(real).catch(() => undefined)]);
  return b !== undefined && a.dev === b.dev && a.ino === b.ino ? real : undefined;
}

/** What a refused key file path is told: where keys belong and how to change it. */
export function keyPathAdvice(problem: KeyPathProblem, keyDir: string): string {
  return problem === 'not-absolute'
    ? `must be an absolute path inside the key directory ${keyDir} (NAP_SSH_KEY_DIR), or the key itself`
    : `lies outside the key directory ${keyDir} (NAP_SSH_KEY_DIR): move the key there, or have the operator set NAP_SSH_KEY_DIR to the directory that holds the keys`;
}
