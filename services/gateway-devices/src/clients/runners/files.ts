import { accessSync, constants as fsConstants, realpathSync } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '@nap/contracts';

/** Deepest directory level discovery walks. */
const MAX_DEPTH = 4;

/** True when `p` is a regular file. */
export async function isFile(p: string): Promise<boolean> {
  return (await stat(p).catch(() => undefined))?.isFile() === true;
}

/** True when `p` is a directory. */
export async function isDir(p: string): Promise<boolean> {
  return (await stat(p).catch(() => undefined))?.isDirectory() === true;
}

/** True when the process may execute `p`. */
export function isExecutable(p: string): boolean {
  try {
    accessSync(p, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Files below `root` (relative, `/`-separated, sorted, hidden ones skipped) that `accept` keeps. */
export async function walkFiles(root: string, accept: (rel: string) => boolean, depth = 0, rel = ''): Promise<string[]> {
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

/** Names of the directories in `root` (hidden ones skipped), sorted. */
export async function subdirs(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
}

/** The first comment or `name:` line of a file, as its description. */
export async function describe(file: string): Promise<string> {
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

/** `dir/name.ext` → `dir/name`. */
export function stripExt(file: string): string {
  return file.replace(/\.[^./]+$/, '');
}

/**
 * The absolute path of `name` inside `root`, refusing anything that leads outside it: absolute
 * names, `..` segments, NUL bytes, and symbolic links whose target is outside. Throws
 * `RUNNER_PATH_REFUSED`; a path that does not exist is `RUNNER_NOT_FOUND`.
 */
export function resolveInside(root: string, name: string, what: string): string {
  const refuse = (): never => {
    throw new AppError(
      'RUNNER_PATH_REFUSED',
      `The ${what} name "${name}" leads outside the configured directory; use a name relative to it`,
      { details: { name } },
    );
  };
  if (name.includes('\0') || path.isAbsolute(name) || name.split(/[\\/]/).includes('..')) refuse();
  const joined = path.resolve(root, name);
  let realRoot: string;
  let real: string;
  try {
    realRoot = realpathSync(root);
    real = realpathSync(joined);
  } catch {
    throw new AppError('RUNNER_NOT_FOUND', `No ${what} named "${name}"`, { details: { name } });
  }
  if (real !== realRoot && !real.startsWith(realRoot + path.sep)) refuse();
  return real;
}
