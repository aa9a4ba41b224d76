import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliError, EXIT, usage } from './errors';

/**
 * Assets through a Git repository, with the `git` on the PATH (as ipctl does): clone the
 * repository (a URL or a local folder) at a branch into a temporary folder, read or write there,
 * and for an export commit and push back. The repository's own credentials (SSH agent, credential
 * helpers) are git's business; `nap` never sees them.
 */
export interface RepositoryOptions {
  repository: string;
  reference?: string;
  debug?: (line: string) => void;
}

function git(args: string[], cwd: string, debug?: (line: string) => void): Promise<string> {
  debug?.(`git ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' }, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err === null) {
          resolve(stdout);
          return;
        }
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
          reject(new CliError('git is not on the PATH: install git to use --repository', EXIT.USAGE));
          return;
        }
        const detail =
          (stderr || err.message)
            .trim()
            .split('\n')
            .filter((l) => l !== '')
            .pop() ?? '';
        reject(new CliError(`git ${args[0]} failed: ${detail}`, EXIT.FAILED, { cause: err }));
      },
    );
  });
}

function checkRepository(repository: string): void {
  const looksLikeUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(repository) || /^[^/\s]+@[^:\s]+:/.test(repository);
  if (!looksLikeUrl && !existsSync(repository)) throw usage(`--repository ${repository}: neither a Git URL nor an existing folder`);
}

async function clone(opts: RepositoryOptions, dir: string, forWrite: boolean): Promise<void> {
  const source = existsSync(opts.repository) ? path.resolve(opts.repository) : opts.repository;
  const base = ['clone', '--quiet', '--depth', '1'];
  if (opts.reference === undefined) {
    await git([...base, source, dir], os.tmpdir(), opts.debug);
    return;
  }
  try {
    await git([...base, '--branch', opts.reference, source, dir], os.tmpdir(), opts.debug);
  } catch (err) {
    if (!forWrite)
      throw new CliError(`branch "${opts.reference}" of ${opts.repository} cannot be read: ${(err as Error).message}`, EXIT.FAILED);
    // exporting to a branch that does not exist yet: start it from the default branch
    rmSync(dir, { recursive: true, force: true });
    await git([...base, source, dir], os.tmpdir(), opts.debug);
    await git(['checkout', '--quiet', '-b', opts.reference], dir, opts.debug);
  }
}

/** Runs `work` in a fresh clone; the clone is removed afterwards. */
export async function withClone<T>(opts: RepositoryOptions, forWrite: boolean, work: (dir: string) => Promise<T>): Promise<T> {
  checkRepository(opts.repository);
  const parent = mkdtempSync(path.join(os.tmpdir(), 'nap-git-'));
  const dir = path.join(parent, 'repo');
  try {
    await clone(opts, dir, forWrite);
    return await work(dir);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}

/** Commits what changed in the clone and pushes it to its branch; false when nothing changed. */
export async function commitAndPush(
  dir: string,
  opts: RepositoryOptions & { message: string; author: { name?: string; email?: string } },
): Promise<boolean> {
  await git(['add', '--all'], dir, opts.debug);
  const status = await git(['status', '--porcelain'], dir, opts.debug);
  if (status.trim() === '') return false;
  const identity: string[] = [];
  const configured = async (key: string): Promise<boolean> => (await git(['config', '--get', key], dir).catch(() => '')).trim() !== '';
  const name = opts.author.name ?? ((await configured('user.name')) ? undefined : 'nap');
  const email = opts.author.email ?? ((await configured('user.email')) ? undefined : 'nap@localhost');
  if (name !== undefined) identity.push('-c', `user.name=${name}`);
  if (email !== undefined) identity.push('-c', `user.email=${email}`);
  await git([...identity, 'commit', '--quiet', '-m', opts.message], dir, opts.debug);
  const branch = opts.reference ?? (await git(['symbolic-ref', '--short', 'HEAD'], dir, opts.debug)).trim();
  await git(['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`], dir, opts.debug);
  return true;
}
