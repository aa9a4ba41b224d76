import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Context } from '../context';
import { eachItem, stopsAll } from '../each';
import { CliError, EXIT, usage } from '../errors';
import { exportFileName, importFiles, makeFolder, readDocuments, realPathInside } from '../files';
import { commitAndPush, withClone } from '../git';
import type { Client } from '../http/client';
import { platformMessage } from '../http/client';
import { limitOption } from '../limit';
import { describeDocument, serialize, statusColor, table } from '../output/format';
import type { Doc } from '../resources/documents';
import { field, isDoc, unwrap } from '../resources/documents';
import type { Found } from '../resources/lookup';
import { deleteFound, exportDocument, fullDocument, listAll, mustFind } from '../resources/lookup';
import type { PortableOptions } from '../resources/portable';
import { importPortable, OMITTED_SECRETS, portableOf } from '../resources/portable';
import type { ResourceDef, Verb } from '../resources/registry';
import { findResource, RESOURCES } from '../resources/registry';
import type { ImportItem, ImportOutcome } from './importing';
import { IMPORTED, importEach, namedItems } from './importing';

/** The resource a word names, or a usage error listing the ones there are. */
export function resourceOf(word: string): ResourceDef {
  const def = findResource(word);
  if (def === undefined) throw usage(`unknown resource "${word}"; one of: ${RESOURCES.map((r) => r.plural).join(', ')}`);
  return def;
}

/** Stops with exit 4 where the platform has no route for the verb. */
export function requireVerb(def: ResourceDef, verb: Verb): void {
  const gap = def.gaps[verb];
  if (gap !== undefined) throw new CliError(`nap ${verb} ${def.singular}: ${gap}`, EXIT.USAGE);
}

function rows(ctx: Context, def: ResourceDef, docs: readonly Doc[]): string {
  if (docs.length === 0) return `No ${def.plural} found.\n`;
  return table(
    docs,
    def.columns.map((col) => ({
      header: col.header,
      value: (d: Doc) => (typeof col.path === 'function' ? col.path(d) : field(d, col.path)),
      ...(col.status === true ? { color: (text: string) => statusColor(text, ctx.colors) } : {}),
      ...(col.prose === true ? { prose: true } : {}),
    })),
    ctx.colors,
    ctx.width,
  );
}

export async function getCommand(ctx: Context, word: string, name: string | undefined, opts: { limit?: string }): Promise<void> {
  const def = resourceOf(word);
  requireVerb(def, 'get');
  const limit = opts.limit === undefined ? undefined : limitOption(opts.limit, 0);
  const client = ctx.client();
  if (name === undefined) {
    const { items } = await ctx.spin(`Listing ${def.plural}`, () => listAll(client, def, limit));
    ctx.print(items, () => rows(ctx, def, items));
    return;
  }
  const found = await mustFind(client, def, name);
  ctx.print(found.doc, () => rows(ctx, def, [found.doc]));
}

export async function describeCommand(ctx: Context, word: string, name: string): Promise<void> {
  const def = resourceOf(word);
  requireVerb(def, 'describe');
  const client = ctx.client();
  const found = await mustFind(client, def, name);
  const doc = await fullDocument(client, def, found);
  ctx.print(doc, () => describeDocument(doc, ctx.colors));
}

/** `workflow "name" (id)`: a document in a line for people. */
export function label(def: ResourceDef, doc: Doc): string {
  const name = def.nameOf(doc);
  const id = def.idOf(doc);
  return `${def.singular} "${name ?? id ?? '?'}"${id !== undefined && id !== name ? ` (${id})` : ''}`;
}

export async function createCommand(ctx: Context, word: string, opts: { file?: string }): Promise<void> {
  const def = resourceOf(word);
  requireVerb(def, 'create');
  if (opts.file === undefined) throw usage(`nap create ${def.singular} needs -f FILE (JSON or YAML; - for stdin)`);
  const create = def.create;
  const docs = await readDocuments(ctx, opts.file);
  const client = ctx.client();
  if (create === undefined && def.portable?.create !== undefined) {
    // no route of its own (device groups): written as an import that replaces nothing
    const answers = await importPortable(client, def, docs, false, portableOptions(ctx, def, {}));
    if (ctx.format === 'human') for (const doc of docs) ctx.out(`created ${label(def, doc)}`);
    else ctx.print(answers.length === 1 ? answers[0] : answers, () => '');
    return;
  }
  if (create === undefined) throw new CliError(`nap create ${def.singular}: the platform has no route for it`, EXIT.USAGE);
  const created: unknown[] = [];
  await eachItem(
    ctx,
    docs,
    { plural: def.plural, done: 'created', item: 'document' },
    async (doc) => {
      const req = { method: create.route.method, path: create.route.path, json: create.wrap(doc) } as const;
      const res = await client.send(req);
      if (res.status >= 400) {
        if (res.status === 401 || res.status === 403) throw client.failure(req, res);
        const { code, message } = platformMessage(res.body);
        throw new CliError(
          `${label(def, doc)} not created: ${message} (${res.status}${code === undefined ? '' : ` ${code}`})`,
          EXIT.FAILED,
        );
      }
      const stored = unwrap(res.body);
      created.push(stored);
      // the inventory's create route also updates a device of that name, and says which it did
      const verb = isDoc(stored) && stored.created === false ? 'updated' : 'created';
      if (ctx.format === 'human') ctx.out(`${verb} ${label(def, isDoc(stored) ? { ...doc, ...stored } : doc)}`);
    },
    () => {
      if (ctx.format !== 'human' && created.length > 0) ctx.print(docs.length === 1 ? created[0] : created, () => '');
    },
  );
}

export async function deleteCommand(ctx: Context, word: string, names: string[]): Promise<void> {
  const def = resourceOf(word);
  requireVerb(def, 'delete');
  const remove =
    def.delete !== undefined
      ? (client: Client, found: Found) => deleteFound(client, def, found)
      : def.portable?.delete !== undefined
        ? portableOf(def).delete
        : undefined;
  if (remove === undefined) throw new CliError(`nap delete ${def.singular}: the platform has no route for it`, EXIT.USAGE);
  const client = ctx.client();
  const answers: unknown[] = [];
  await eachItem(
    ctx,
    names,
    { plural: def.plural, done: 'deleted', item: 'name' },
    async (name) => {
      const found = await mustFind(client, def, name);
      answers.push(await remove(client, found));
      if (ctx.format === 'human') ctx.out(`deleted ${label(def, found.doc)}`);
    },
    () => {
      if (ctx.format !== 'human' && answers.length > 0) ctx.print(names.length === 1 ? answers[0] : answers, () => '');
    },
  );
}

/** `--secret-from-env MEMBER=VAR` and `--password-from-env VAR`: what they name, read from the environment. */
export interface SecretFlags {
  secretFromEnv?: string[];
  passwordFromEnv?: string;
}

function fromEnv(ctx: Context, flag: string, variable: string): string {
  const value = ctx.io.env[variable];
  if (value === undefined || value === '') throw usage(`${flag} ${variable}: the environment variable ${variable} is not set`);
  return value;
}

/** The options of a portable import; the secret flags only where the resource has a portable form. */
export function portableOptions(ctx: Context, def: ResourceDef, flags: SecretFlags): PortableOptions {
  const secrets: Record<string, string> = {};
  const given = (flags.secretFromEnv ?? []).length > 0 || flags.passwordFromEnv !== undefined;
  if (given && def.portable === undefined)
    throw usage(`--secret-from-env and --password-from-env are for resources nap exports without their secrets, not ${def.plural}`);
  if (flags.passwordFromEnv !== undefined) {
    if (def.plural !== 'accounts') throw usage(`--password-from-env is for accounts; for ${def.plural} use --secret-from-env MEMBER=VAR`);
    secrets.password = fromEnv(ctx, '--password-from-env', flags.passwordFromEnv);
  }
  for (const pair of flags.secretFromEnv ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0 || eq === pair.length - 1)
      throw usage(`--secret-from-env ${pair}: expected MEMBER=VAR, e.g. variables.gw_password=EDGE_PASSWORD`);
    secrets[pair.slice(0, eq)] = fromEnv(ctx, '--secret-from-env', pair.slice(eq + 1));
  }
  return { secrets, note: (line) => ctx.note(line) };
}

/**
 * Imports documents into one platform, each on its own (cli/src/commands/importing.ts): a document
 * of the same name is left alone without `replace`, and replaced with it — updated in place where
 * the platform can, else deleted and imported again with a copy kept and put back if the new one is
 * refused. A resource in nap's portable form is checked whole first, then created or, with
 * `replace`, updated in place. Answers how each document ended.
 */
export async function importDocuments(
  ctx: Context,
  client: Client,
  def: ResourceDef,
  items: ImportItem[],
  replace: boolean,
  flags: SecretFlags = {},
  onOutcome?: (outcome: ImportOutcome) => void,
): Promise<ImportOutcome[]> {
  const options = portableOptions(ctx, def, flags);
  if (def.import === undefined && def.portable !== undefined) {
    const named = namedItems(def, items);
    const answers = await importPortable(
      client,
      def,
      named.map((i) => i.doc),
      replace,
      options,
    );
    const outcomes = named.map((item, i): ImportOutcome => ({ ...item, state: 'created', answer: answers[i] }));
    for (const outcome of outcomes) onOutcome?.(outcome);
    return outcomes;
  }
  if (def.import === undefined) throw new CliError(`nap import ${def.singular}: the platform has no route for it`, EXIT.USAGE);
  return importEach(client, def, items, replace, onOutcome);
}

/** What the platform noted on items it imported (`… imported. Note: <what>`): a trigger it took in disabled, say. */
function importNotes(outcomes: readonly ImportOutcome[]): string[] {
  const notes: string[] = [];
  for (const { answer, notes: own } of outcomes) {
    notes.push(...(own ?? []));
    const items = (answer as { imported?: unknown } | undefined)?.imported;
    if (!Array.isArray(items)) continue;
    for (const item of items as { success?: unknown; message?: unknown }[]) {
      if (item.success !== true || typeof item.message !== 'string') continue;
      const at = item.message.indexOf('. Note: ');
      if (at !== -1) notes.push(item.message.slice(at + '. Note: '.length));
    }
  }
  return notes;
}

export interface GitOptions {
  repository?: string;
  reference?: string;
  message?: string;
}

/** `--reference` or `--message` without `--repository` would be ignored: refused before anything is read or written. */
function checkGitFlags(opts: GitOptions): void {
  if (opts.repository !== undefined) return;
  const given = [opts.reference === undefined ? '' : '--reference', opts.message === undefined ? '' : '--message'].filter((f) => f !== '');
  if (given.length > 0)
    throw usage(`${given.join(' and ')} ${given.length > 1 ? 'go' : 'goes'} with --repository URL|DIR: give the Git repository too`);
}

/** How an imported document took the place of one of its name, for people: `, updating the one there in place`. */
function howReplaced(outcome: ImportOutcome): string {
  if (outcome.state === 'updated') return `, updating the one there in place${outcome.detail === undefined ? '' : ` (${outcome.detail})`}`;
  if (outcome.state !== 'replaced') return '';
  return ` in place of the one there${outcome.detail === undefined ? '' : `, deleted and imported again: ${outcome.detail}`}`;
}

/** The line that says a document was imported, for people. */
function importedLine(def: ResourceDef, outcome: ImportOutcome): string {
  const doc = outcome.stored === undefined ? outcome.doc : { ...outcome.doc, ...outcome.stored };
  return `imported ${label(def, doc)}${howReplaced(outcome)}`;
}

/**
 * Says how an import ended: a line on stdout for each document imported and on stderr for each
 * not imported, as each ends, the platform's notes after; then, when any was not, the summary
 * (`N of M workflows not imported`) or, for one document, its failure, as the command's error.
 */
async function reportImport(
  ctx: Context,
  def: ResourceDef,
  count: number,
  run: (onOutcome: (outcome: ImportOutcome) => void) => Promise<ImportOutcome[]>,
): Promise<ImportOutcome[]> {
  const onOutcome = (outcome: ImportOutcome): void => {
    if (IMPORTED.has(outcome.state)) {
      if (ctx.format === 'human') ctx.out(importedLine(def, outcome));
    } else if (count > 1 && outcome.error !== undefined) ctx.note(`nap: ${outcome.error.message}`);
  };
  const outcomes = await ctx.spin(`Importing ${count} ${count === 1 ? def.singular : def.plural}`, () => run(onOutcome));
  const done = outcomes.filter((o) => IMPORTED.has(o.state));
  if (ctx.format === 'human') for (const note of importNotes(done)) ctx.note(`note: ${note}`);
  else if (done.length > 0) ctx.print(count === 1 ? done[0]?.answer : done.map((o) => o.answer), () => '');
  const failed = outcomes.filter((o) => !IMPORTED.has(o.state));
  const first = failed[0]?.error;
  if (first === undefined) return outcomes;
  if (count === 1) throw first;
  const lost = failed.filter((o) => o.state === 'lost');
  const partial = failed.filter((o) => o.state === 'partial');
  const notTried = count - outcomes.length;
  const parts = [`${failed.length + notTried} of ${count} ${def.plural} not imported`];
  if (lost.length > 0) parts.push(`${lost.length} deleted and NOT put back (copies: ${lost.map((o) => o.backup).join(', ')})`);
  if (partial.length > 0)
    parts.push(`${partial.length} changed in part and NOT all put back (copies: ${partial.map((o) => o.backup).join(', ')})`);
  if (notTried > 0) parts.push(`${notTried} not tried`);
  const unrestored = lost.length + partial.length > 0;
  throw new CliError(parts.join('; '), stopsAll(first) ? first.exitCode : unrestored ? EXIT.FAILED : first.exitCode);
}

export async function importCommand(
  ctx: Context,
  word: string,
  target: string,
  opts: GitOptions & SecretFlags & { replace?: boolean },
): Promise<void> {
  const def = resourceOf(word);
  requireVerb(def, 'import');
  checkGitFlags(opts);
  const client = ctx.client();
  if (target === '-' && opts.repository === undefined) {
    // a pipe: `nap export workflow X --profile staging | jq … | nap import workflow - --profile production`
    const items = (await readDocuments(ctx, '-', `nap import ${def.singular} -`)).map((doc): ImportItem => ({ doc, file: 'stdin' }));
    portableOptions(ctx, def, opts);
    await reportImport(ctx, def, items.length, (onOutcome) =>
      importDocuments(ctx, client, def, items, opts.replace === true, opts, onOutcome),
    );
    return;
  }
  const run = async (root: string): Promise<void> => {
    // a cloned repository is not the caller's: nothing of it is read through a link that leads out of it
    const inClone = opts.repository !== undefined;
    const resolved = inClone ? realPathInside(root, target, target, 'the repository') : path.resolve(root, target);
    if (inClone && !existsSync(resolved)) throw usage(notInRepository(target, root, def.kind, opts));
    const files = importFiles(resolved, def.kind).map((file) =>
      inClone ? realPathInside(root, file, path.join(target, path.relative(resolved, file)), 'the repository') : file,
    );
    const items: ImportItem[] = [];
    for (const file of files) for (const doc of await readDocuments(ctx, file)) items.push({ doc, file });
    portableOptions(ctx, def, opts); // the flags checked before anything is written
    await reportImport(ctx, def, items.length, (onOutcome) =>
      importDocuments(ctx, client, def, items, opts.replace === true, opts, onOutcome),
    );
  };
  if (opts.repository === undefined) await run(process.cwd());
  else await withClone({ repository: opts.repository, reference: opts.reference, debug: debugLog(ctx) }, false, run);
}

/**
 * An import path the clone lacks, said of the repository and branch (not of the temporary clone),
 * with the files of the kind it does hold, so that a missing `--path` folder shows.
 */
function notInRepository(target: string, root: string, kind: string, opts: GitOptions): string {
  const found: string[] = [];
  const walk = (dir: string, depth: number): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (found.length >= 5 || entry.name === '.git') continue;
      const rel = path.relative(root, path.join(dir, entry.name));
      if (entry.isDirectory() && depth < 3) walk(path.join(dir, entry.name), depth + 1);
      else if (entry.isFile() && entry.name.toLowerCase().includes(`.${kind}.`)) found.push(rel);
    }
  };
  walk(root, 0);
  const branch = opts.reference === undefined ? 'its default branch' : `branch "${opts.reference}"`;
  const holds = found.length > 0 ? `; its ${kind} files: ${found.join(', ')}` : `; it holds no ${kind} file`;
  return `${target}: no such file or folder in ${branch} of ${opts.repository} (the path is from the repository's root)${holds}`;
}

function debugLog(ctx: Context): ((line: string) => void) | undefined {
  return ctx.options.debug ? (line) => ctx.note(ctx.stderrColors.dim(line)) : undefined;
}

/** Why a folder or file cannot be written, for people. */
function writeProblem(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return 'no such folder';
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder';
    case 'EEXIST':
      // mkdir of --path itself where a file of that name is
      return 'the --path is a file, not a folder';
    case 'EISDIR':
      return 'it is a folder';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'a read-only file system';
    case 'ENAMETOOLONG':
      return 'the name is too long';
    case 'ENOSPC':
      return 'no space left';
    default:
      return code ?? (err as Error).message;
  }
}

/**
 * Writes an exported document to `<dir>/<file>` (the folder made when missing). A file there that
 * holds another document of the kind — one whose name gives the same file name, `a/b` and `a_b` —
 * is not overwritten: the export is refused (exit 4), so that a folder never loses a document.
 * With `clone` (a cloned repository's folder), the file is written only where it really lies inside it.
 */
function writeDocument(def: ResourceDef, dir: string, file: string, doc: Doc, shown = dir, clone?: string): string {
  // in a clone, a file there that is a link leading out of it is neither read nor written through
  const full =
    clone === undefined ? path.join(dir, file) : realPathInside(clone, path.join(dir, file), path.join(shown, file), 'the repository');
  const name = def.fileName?.(doc) ?? def.nameOf(doc);
  let before: unknown;
  try {
    before = JSON.parse(readFileSync(full, 'utf8')) as unknown;
  } catch {
    before = undefined;
  }
  const beforeName = isDoc(before) ? (def.fileName?.(before) ?? def.nameOf(before)) : undefined;
  if (beforeName !== undefined && name !== undefined && beforeName !== name)
    throw usage(
      `${path.join(shown, file)} holds ${def.singular} "${beforeName}", whose name gives the same file name as "${name}": nap does not overwrite it; export ${def.singular} "${name}" to another --path`,
    );
  try {
    makeFolder(dir);
    writeFileSync(full, `${JSON.stringify(doc, null, 2)}\n`);
  } catch (err) {
    throw usage(`cannot write ${path.join(shown, file)}: ${err instanceof CliError ? err.message : writeProblem(err)}`);
  }
  return full;
}

/** The document as the platform exports it, or in nap's portable form where it has no export route. */
async function exported(ctx: Context, client: Client, def: ResourceDef, found: Found, noteSecrets = true): Promise<Doc> {
  if (def.export !== undefined) return exportDocument(client, def, found);
  if (def.portable === undefined) throw new CliError(`nap export ${def.singular}: the platform has no route for it`, EXIT.USAGE);
  const doc = await portableOf(def).export(client, found);
  const omitted = doc[OMITTED_SECRETS];
  if (noteSecrets && Array.isArray(omitted) && omitted.length > 0)
    ctx.note(
      `${label(def, doc)}: its secrets are not exported (${omitted.join(', ')}); give them on import with --secret-from-env MEMBER=VAR`,
    );
  return doc;
}

export async function exportCommand(ctx: Context, word: string, name: string, opts: GitOptions & { path?: string }): Promise<void> {
  const def = resourceOf(word);
  requireVerb(def, 'export');
  checkGitFlags(opts);
  const client = ctx.client();
  const found = await mustFind(client, def, name);
  const doc = await exported(ctx, client, def, found);
  const file = exportFileName(def.fileName?.(doc) ?? def.nameOf(doc) ?? found.name ?? name, def.kind);
  if (opts.repository !== undefined) {
    const repository = opts.repository;
    const pushed = await withClone({ repository, reference: opts.reference, debug: debugLog(ctx) }, true, async (dir) => {
      const target = realPathInside(dir, opts.path ?? '.', `--path ${opts.path ?? '.'}`, 'the repository');
      writeDocument(def, target, file, doc, opts.path ?? '.', dir);
      return commitAndPush(dir, {
        repository,
        reference: opts.reference,
        debug: debugLog(ctx),
        message: opts.message ?? `nap export ${def.singular} "${def.nameOf(doc) ?? name}" from ${client.url}`,
        author: ctx.config().git,
      });
    });
    const where = `${repository}${opts.reference === undefined ? '' : ` (${opts.reference})`}`;
    ctx.note(
      pushed
        ? `exported ${label(def, doc)} to ${path.posix.join(opts.path ?? '.', file)} in ${where}`
        : `${where} already holds ${file} as exported: nothing to commit`,
    );
    return;
  }
  if (opts.path === undefined && ctx.io.stdout.isTTY !== true) {
    ctx.out(ctx.format === 'yaml' ? serialize(doc, 'yaml') : `${JSON.stringify(doc, null, 2)}\n`);
    return;
  }
  const written = writeDocument(def, opts.path ?? '.', file, doc);
  ctx.note(`exported ${label(def, doc)} to ${written}`);
}

export async function copyCommand(
  ctx: Context,
  word: string,
  name: string,
  opts: SecretFlags & { from?: string; to?: string; replace?: boolean },
): Promise<void> {
  const def = resourceOf(word);
  requireVerb(def, 'copy');
  if ((def.export === undefined || def.import === undefined) && def.portable === undefined)
    throw new CliError(`nap copy ${def.singular}: the platform cannot export and import it`, EXIT.USAGE);
  if (opts.from === undefined && opts.to === undefined) throw usage('nap copy needs --from PROFILE and/or --to PROFILE');
  const from = ctx.client(opts.from, '--from');
  const to = ctx.client(opts.to, '--to');
  if (from.url === to.url && (opts.from ?? '') === (opts.to ?? '')) throw usage('--from and --to name the same profile');
  portableOptions(ctx, def, opts); // the flags checked before anything is read
  const found = await mustFind(from, def, name);
  // what the target lacks is said by the import, which knows whether it created or updated
  const doc = await exported(ctx, from, def, found, false);
  const [outcome] = await importDocuments(ctx, to, def, [{ doc }], opts.replace === true, opts);
  if (outcome === undefined) throw new Error('the import answered nothing');
  if (outcome.error !== undefined) throw outcome.error;
  if (ctx.format === 'human') {
    ctx.out(`copied ${label(def, doc)} from ${from.profile.name} (${from.url}) to ${to.profile.name} (${to.url})${howReplaced(outcome)}`);
    for (const note of importNotes([outcome])) ctx.note(`note: ${note}`);
  } else ctx.print(outcome.answer, () => '');
}
