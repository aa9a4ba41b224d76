import { lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Context } from './context';
import { CliError, EXIT, usage } from './errors';
import { loadYaml } from './lazy';
import type { Doc } from './resources/documents';
import { isDoc } from './resources/documents';

/** How a file is named in messages: `stdin` for `-`. */
export function shownFile(file: string): string {
  return file === '-' ? 'stdin' : file;
}

/** A JSON or YAML document (by extension; JSON first for anything else). */
export function parseDocument(text: string, file: string): unknown {
  const yamlFile = /\.ya?ml$/i.test(file);
  if (!yamlFile) {
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      if (/\.json$/i.test(file)) throw usage(`${shownFile(file)} is not valid JSON: ${(err as Error).message}`);
    }
  }
  const YAML = loadYaml();
  try {
    return YAML.parse(text) as unknown;
  } catch (err) {
    throw usage(`${shownFile(file)} is not valid ${yamlFile ? 'YAML' : 'JSON or YAML'}: ${(err as Error).message.split('\n')[0]}`);
  }
}

/**
 * The text of a file, or of stdin for `-` (read asynchronously through the context's stdin;
 * `stdinFlag` is the option that names it, for messages: `-f -`).
 */
export async function readText(ctx: Context, file: string, stdinFlag: string): Promise<string> {
  if (file === '-') return ctx.readStdin(stdinFlag);
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw usage(`cannot read ${shownFile(file)}: ${code === 'ENOENT' ? 'no such file' : (code ?? String(err))}`);
  }
}

/** The documents of a file: one object, or an array of them. */
export async function readDocuments(ctx: Context, file: string, stdinFlag = '-f -'): Promise<Doc[]> {
  const value = parseDocument(await readText(ctx, file, stdinFlag), file);
  const docs = Array.isArray(value) ? value : [value];
  if (docs.length === 0 || !docs.every(isDoc)) throw usage(`${shownFile(file)} must hold a JSON/YAML object or an array of objects`);
  return docs;
}

/**
 * The files an import reads: the file itself, or those of a folder ending in `.<kind>.json|yaml`
 * (ipctl's naming), or every JSON/YAML file of the folder when none is named so.
 */
export function importFiles(target: string, kind: string): string[] {
  let stat;
  try {
    stat = statSync(target);
  } catch {
    throw new CliError(`${target}: no such file or folder`, EXIT.USAGE);
  }
  if (!stat.isDirectory()) return [target];
  const all = readdirSync(target)
    .filter((f) => /\.(json|ya?ml)$/i.test(f))
    .sort();
  const named = all.filter((f) => f.toLowerCase().includes(`.${kind}.`));
  const chosen = named.length > 0 ? named : all;
  if (chosen.length === 0) throw usage(`${target} holds no .json or .yaml file to import`);
  return chosen.map((f) => path.join(target, f));
}

/** True when `inner` is the folder `outer` or lies below it, by whole path segments (`/a/bc` is not below `/a/b`). */
export function isInside(outer: string, inner: string): boolean {
  const rel = path.relative(outer, inner);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * Where `target` (a path from the folder `root`) really is, checked to stay inside `root` once
 * every symbolic link on the way is followed (a cloned repository may hold links to anywhere, to
 * `~/.ssh` or `/etc`): the real path of `target`, or, for a path that does not exist yet, the real
 * path of its nearest existing folder with the rest of `target` joined on. A path outside `root`,
 * one through a symbolic link that leads outside it or nowhere, or one into `root`'s `.git` is a
 * usage error (exit 4) naming `shown` and `where` (`the repository`).
 */
export function realPathInside(root: string, target: string, shown: string, where: string): string {
  const realRoot = realpathSync(root);
  const resolved = path.resolve(realRoot, target);
  if (!isInside(realRoot, resolved)) throw usage(`${shown} is outside ${where}`);
  let existing = resolved;
  const rest: string[] = [];
  for (;;) {
    let real: string;
    try {
      real = realpathSync(existing);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw usage(`cannot read ${shown}: ${code ?? String(err)}`);
      // a link to nothing: what is written through it would land wherever it points
      if (isSymbolicLink(existing))
        throw usage(`${shown} goes through a symbolic link in ${where} that leads to nothing: nap does not follow it`);
      rest.unshift(path.basename(existing));
      existing = path.dirname(existing);
      continue;
    }
    if (!isInside(realRoot, real)) throw usage(`${shown} goes through a symbolic link that leads outside ${where}: nap does not follow it`);
    const full = path.join(real, ...rest);
    if (path.relative(realRoot, full).split(path.sep)[0] === '.git') throw usage(`${shown} is inside the .git folder of ${where}`);
    return full;
  }
}

function isSymbolicLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Makes the folder `dir` and the missing folders above it, one at a time from the nearest that
 * exists. Node's own `mkdirSync(dir, { recursive: true })` never returns where a file system answers
 * ENOENT to a mkdir whose parent exists (procfs and the like: `/proc/x`); here that is a usage error
 * (exit 4) naming the folder and its parent. Any other failure is thrown as the file system gave it
 * (ENOTDIR, EACCES, EROFS, …; EEXIST when `dir` itself is a file), for the caller to word.
 */
export function makeFolder(dir: string, mode?: number): void {
  const missing: string[] = [];
  let at = path.resolve(dir);
  for (;;) {
    let isFolder: boolean;
    try {
      isFolder = statSync(at).isDirectory();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      missing.push(at);
      const parent = path.dirname(at);
      if (parent === at) break;
      at = parent;
      continue;
    }
    // a file where a folder is wanted: mkdir says so in its own words (EEXIST for dir, ENOTDIR above it)
    if (!isFolder) mkdirSync(missing.at(-1) ?? at, mode === undefined ? {} : { mode });
    break;
  }
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder, mode === undefined ? {} : { mode });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' && statSync(folder).isDirectory()) continue; // made meanwhile
      if (code === 'ENOENT')
        throw new CliError(
          `the folder ${folder} cannot be made: the file system of ${path.dirname(folder)} refuses new folders`,
          EXIT.USAGE,
          {
            cause: err,
          },
        );
      throw err;
    }
  }
}

/** `<name>.<kind>.json`, with path separators replaced (ipctl's naming). */
export function exportFileName(name: string, kind: string, ext = 'json'): string {
  return `${name.replace(/[/\\]/g, '_')}.${kind}.${ext}`;
}

/** `--var k=v` values: JSON when they parse (numbers, booleans, objects), else the text. */
export function parseVars(pairs: readonly string[] | undefined, flag = '--var'): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  for (const pair of pairs ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw usage(`${flag} ${pair}: expected name=value`);
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw) as unknown;
    } catch {
      value = raw;
    }
    vars[pair.slice(0, eq)] = value;
  }
  return vars;
}

/**
 * `--data JSON` or `--data @file` (`@-`: stdin). `flag` names the option in messages
 * (`--form-data`), `stdinFlag` the option reading stdin (`--vars -`).
 */
export async function readData(ctx: Context, data: string, flag = '--data', stdinFlag = `${flag} @-`): Promise<unknown> {
  if (data.startsWith('@')) {
    const file = data.slice(1);
    return parseDocument(await readText(ctx, file, stdinFlag), file);
  }
  try {
    return JSON.parse(data) as unknown;
  } catch (err) {
    throw usage(`${flag} is not valid JSON: ${(err as Error).message}; give it in single quotes, ${flag} '{"name": "value"}', or as @FILE`);
  }
}
