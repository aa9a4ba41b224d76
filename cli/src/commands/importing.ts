import { chmodSync, mkdtempSync, readdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stopsAll } from '../each';
import { CliError, EXIT, usage } from '../errors';
import { endedBy, whileInterruptible } from '../interrupt';
import { exportFileName } from '../files';
import type { ApiRequest, ApiResponse, Client } from '../http/client';
import { platformMessage } from '../http/client';
import { terminalText } from '../output/terminal';
import type { Doc } from '../resources/documents';
import { updateAutomationInPlace } from './automation-in-place';
import { updateProjectInPlace } from './project-in-place';
import { isDoc, unwrap } from '../resources/documents';
import type { Found } from '../resources/lookup';
import { deleteFound, exportDocument, findExisting, lookup, routePath } from '../resources/lookup';
import type { ResourceDef } from '../resources/registry';
import { an } from '../resources/registry';

/**
 * Imports through a resource's import route, one document at a time, so that one the platform
 * refuses costs no other. A document of the same name on the target is left alone without
 * `replace`; with it, it is updated in place where the resource has an update route
 * (`ResourceDef.update`) that can make it the new document (a project's route changes its name and
 * description, not its components), so that a refused document leaves it exactly as it was; an
 * automation whose triggers differ is updated in place too, its triggers one by one, rolled back
 * when one is refused (automation-in-place.ts). Elsewhere it can only be deleted and imported again; then, before anything is deleted, the document there is read
 * as the platform exports it, kept in memory and written to a file in the OS temp folder; when the
 * platform refuses the new document, the kept one is imported back, and when even that fails the
 * outcome says what was deleted and where its copy is.
 */

/** How one document of an import ended. */
export type ImportState =
  /** imported; nothing of that name was there */
  | 'created'
  /** the document there updated in place */
  | 'updated'
  /** the document there deleted, this one imported */
  | 'replaced'
  /** not imported: one of that name is there, and no `--replace` */
  | 'exists'
  /** not imported: refused; the document there (if any) left as it was */
  | 'refused'
  /** not imported: refused after the document there was deleted, which was put back */
  | 'restored'
  /** not imported, and the document there was deleted and could not be put back: its copy is in `backup` */
  | 'lost'
  /** not imported, and the document there was changed in part and could not all be put back: its copy is in `backup` */
  | 'partial';

export interface ImportOutcome {
  /** The document as given. */
  doc: Doc;
  name: string;
  /** The file it was read from, when it came from one. */
  file?: string;
  state: ImportState;
  /** The platform's answer to the write (what `-o json` prints). */
  answer?: unknown;
  /** The document as stored, for the line that says so. */
  stored?: Doc;
  /** Why it was not imported: one line. */
  error?: CliError;
  /** `lost`, `partial`: the file that holds the copy of the document as it was. */
  backup?: string;
  /** More about an update in place, for people: `its triggers: 1 changed`. */
  detail?: string;
  /** What the platform noted about it (a trigger imported disabled). */
  notes?: string[];
}

export const IMPORTED: ReadonlySet<ImportState> = new Set(['created', 'updated', 'replaced']);

/** The platform's refusal as one line: `message (400 CODE)`. */
function refusalText(res: ApiResponse): string {
  const { code, message } = platformMessage(res.body);
  return `${message} (${res.status}${code === undefined ? '' : ` ${code}`})`;
}

/** 401 and 403 stop the command (exit 5) as every command does; other refusals are the document's. */
function refused(client: Client, req: Pick<ApiRequest, 'method' | 'path'>, res: ApiResponse, what: string): CliError {
  if (res.status === 401 || res.status === 403) return client.failure(req, res);
  return new CliError(`${client.url} refused ${what}: ${refusalText(res)}`, EXIT.FAILED);
}

/** Items of an import answer that the platform refused (`{ imported: [{ success: false, message }] }`). */
function refusals(body: unknown): string[] {
  if (!isDoc(body) || !Array.isArray(body.imported)) return [];
  return body.imported.filter((i): i is Doc => isDoc(i) && i.success === false).map((i) => String(i.message ?? 'refused'));
}

/** The stored document of an import answer: the one item of a batch route, or the answer of a route of one. */
function storedOf(body: unknown): Doc | undefined {
  if (isDoc(body) && Array.isArray(body.imported)) {
    const item = body.imported[0];
    return isDoc(item) && isDoc(item.created) ? item.created : undefined;
  }
  const doc = unwrap(body);
  return isDoc(doc) ? doc : undefined;
}

interface Written {
  answer: unknown;
  stored: Doc | undefined;
}

/** Sends one document through the import route: its answer, or the platform's refusal (thrown). */
async function importOne(client: Client, def: ResourceDef, doc: Doc, what: string): Promise<Written> {
  const spec = def.import;
  if (spec === undefined) throw new Error(`${def.plural} has no import route`);
  const req = { method: spec.route.method, path: spec.route.path, json: spec.wrap([doc]) } as const;
  const res = await client.send(req);
  if (res.status >= 400) {
    const failure = refused(client, req, res, what);
    throw failure.exitCode === EXIT.FAILED ? await withIdOwner(client, def, doc, failure) : failure;
  }
  const refusedItems = refusals(res.body);
  if (refusedItems.length > 0)
    throw await withIdOwner(client, def, doc, new CliError(`${client.url} refused ${what}: ${refusedItems.join('; ')}`, EXIT.FAILED));
  return { answer: res.body, stored: storedOf(res.body) };
}

/**
 * A refusal of a document whose `_id` another document of the platform has (an export renamed to
 * make a second one): the refusal names that document and says to leave `_id` out; the refusal as
 * it was otherwise.
 */
async function withIdOwner(client: Client, def: ResourceDef, doc: Doc, failure: CliError): Promise<CliError> {
  const id = def.idOf(doc);
  const name = def.nameOf(doc);
  if (id === undefined || name === undefined) return failure;
  const owner = await lookup(client, def, id).catch(() => undefined);
  if (owner === undefined || owner.id !== id || owner.name === undefined || owner.name === name) return failure;
  return new CliError(
    `${failure.message}; the file's _id ${id} is that of ${def.singular} "${owner.name}" there: leave _id out of the file to import it as another ${def.singular}`,
    failure.exitCode,
    { cause: failure },
  );
}

/** The backups of one import: a folder of the OS temp folder, made when the first is written. */
export class Backups {
  private dir: string | undefined;

  constructor(private readonly def: ResourceDef) {}

  /** Writes the copy of a document about to be deleted (mode 0600 in a 0700 folder): its path. */
  write(name: string, doc: Doc): string {
    this.dir ??= mkdtempSync(path.join(os.tmpdir(), `nap-replaced-${this.def.plural}-`));
    const file = path.join(this.dir, exportFileName(name, this.def.kind));
    writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    return file;
  }

  /** Removes a copy no longer needed, and the folder once it is empty. */
  remove(file: string): void {
    rmSync(file, { force: true });
    if (this.dir !== undefined && readdirSync(this.dir).length === 0) {
      rmdirSync(this.dir);
      this.dir = undefined;
    }
  }
}

/** The document there as the platform exports it (to keep a copy of), or the outcome that says it cannot be read. */
async function readToKeep(
  client: Client,
  def: ResourceDef,
  existing: Found,
  there: string,
): Promise<{ doc: Doc } | { refusal: Omit<ImportOutcome, 'doc' | 'name'> }> {
  try {
    return { doc: await exportDocument(client, def, existing) };
  } catch (err) {
    if (!(err instanceof CliError) || stopsAll(err)) throw err;
    return {
      refusal: {
        state: 'refused',
        error: new CliError(`${there} cannot be read to keep a copy (${err.message}), so it was not replaced`, err.exitCode),
      },
    };
  }
}

/**
 * Replaces `existing` by `doc`: in place where the resource has an update route that can make the
 * document there `doc`, else by a guarded delete and import.
 */
async function replaceOne(
  client: Client,
  def: ResourceDef,
  doc: Doc,
  name: string,
  existing: Found,
  backups: Backups,
): Promise<Omit<ImportOutcome, 'doc' | 'name'>> {
  const what = `${def.singular} "${name}"`;
  const there = `the ${def.singular} "${name}" there`;
  const update = def.update;
  // the document there as the platform exports it: read first where it says whether the update route can replace it
  let kept: Doc | undefined;
  if (update?.inPlace !== undefined || update?.members === true) {
    const read = await readToKeep(client, def, existing, there);
    if ('refusal' in read) return read.refusal;
    kept = read.doc;
  }
  // why only a delete and an import can replace it, when an update in place was tried
  let why: string | undefined;
  if (update?.members === true) {
    if (kept === undefined || existing.id === undefined) throw new Error(`${what} was read without its id`);
    const inPlace = await updateProjectInPlace(client, doc, name, existing.id, kept, existing.doc, backups);
    if (!('why' in inPlace)) return inPlace;
    why = inPlace.why;
  } else if (update !== undefined && (update.inPlace === undefined || (kept !== undefined && update.inPlace(doc, kept)))) {
    const key = update.key === undefined ? undefined : update.key === 'id' ? existing.id : existing.name;
    const req = { method: update.route.method, path: routePath(update.route, key), json: update.wrap(doc, key) } as const;
    const res = await client.send(req);
    if (res.status < 400) {
      const stored = unwrap(res.body);
      return { state: 'updated', answer: res.body, ...(isDoc(stored) ? { stored } : {}) };
    }
    const code = platformMessage(res.body).code;
    if (code === undefined || update.notApplicable?.includes(code) !== true) {
      const err = refused(client, req, res, what);
      return { state: 'refused', error: stopsAll(err) ? err : new CliError(`${err.message}; ${there} was left as it was`, err.exitCode) };
    }
  } else if (update?.triggers === true && kept !== undefined && existing.id !== undefined) {
    // the update route, then the triggers one by one: the automation keeps its id
    return updateAutomationInPlace(client, doc, name, existing.id, kept, (d) => update.wrap(d) as Doc, backups);
  }
  if (def.delete === undefined)
    return {
      state: 'refused',
      error: new CliError(`${what} exists on ${client.url} and the platform cannot delete it to replace it`, EXIT.FAILED),
    };

  // only a delete and an import can replace it: keep a copy first, in memory and in a file
  if (kept === undefined) {
    const read = await readToKeep(client, def, existing, there);
    if ('refusal' in read) return read.refusal;
    kept = read.doc;
  }
  let backup: string;
  try {
    backup = backups.write(name, kept);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    return {
      state: 'refused',
      error: new CliError(`no copy of ${there} can be written to ${os.tmpdir()} (${reason}), so it was not replaced`, EXIT.FAILED),
    };
  }
  // Ctrl-C (or SIGTERM: a CI job canceled) between the delete and the import must not leave the copy unsaid
  const release = whileInterruptible((signal) =>
    process.stderr.write(
      terminalText(
        `\nnap: ${endedBy(signal)} while replacing ${what}: if it is no longer on ${client.url}, its copy is ${backup} (\`nap import ${def.singular} ${backup}\` puts it back)\n`,
        false,
      ),
    ),
  );
  try {
    try {
      await deleteFound(client, def, existing);
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      if (err.exitCode === EXIT.UNREACHABLE) {
        // the delete may have gone through before the answer was lost: the copy stays, and is said
        const message = `${err.message}; whether ${there} was deleted is not known: its copy is ${backup} (\`nap import ${def.singular} ${backup}\` puts it back if it is gone)`;
        return { state: 'refused', backup, error: new CliError(message, err.exitCode, { cause: err }) };
      }
      backups.remove(backup);
      if (stopsAll(err)) throw err;
      return { state: 'refused', error: new CliError(`${err.message}; ${there} was not replaced`, err.exitCode) };
    }
    const outcome = await importOrPutBack(client, def, doc, kept, backup, backups, what, there);
    return why === undefined || outcome.state !== 'replaced' ? outcome : { ...outcome, detail: why };
  } finally {
    release();
  }
}

/** After the delete: the new document imported, or the kept one put back, or what was lost and where its copy is. */
async function importOrPutBack(
  client: Client,
  def: ResourceDef,
  doc: Doc,
  kept: Doc,
  backup: string,
  backups: Backups,
  what: string,
  there: string,
): Promise<Omit<ImportOutcome, 'doc' | 'name'>> {
  let failure: CliError;
  try {
    const written = await importOne(client, def, doc, what);
    backups.remove(backup);
    return { state: 'replaced', answer: written.answer, ...(written.stored === undefined ? {} : { stored: written.stored }) };
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    failure = err;
  }
  // refused (or cut short) after the delete: put the kept one back
  try {
    await importOne(client, def, kept, `the copy of ${what}`);
    backups.remove(backup);
    return {
      state: 'restored',
      error: new CliError(`${failure.message}; ${there}, deleted to replace it, was put back as it was`, failure.exitCode),
    };
  } catch (err) {
    const why = err instanceof CliError ? err.message : String(err);
    return {
      state: 'lost',
      backup,
      error: new CliError(
        `${failure.message}; ${there} was deleted to replace it and could NOT be put back (${why}): its copy is ${backup} (\`nap import ${def.singular} ${backup}\` puts it back)`,
        stopsAll(failure) ? failure.exitCode : EXIT.FAILED,
      ),
    };
  }
}

/** One document to import, and the file it came from. */
export interface ImportItem {
  doc: Doc;
  file?: string;
}

/**
 * Checks what can be checked before anything is written: every document has a name, and no two
 * have the same one. A usage error otherwise.
 */
export function namedItems(def: ResourceDef, items: readonly ImportItem[]): (ImportItem & { name: string })[] {
  const named = items.map((item) => ({ ...item, name: def.nameOf(item.doc) }));
  const nameless = named.filter((item) => item.name === undefined);
  if (nameless.length > 0) {
    const files = nameless.map((item) => item.file).filter((f): f is string => f !== undefined);
    throw usage(
      `${an(def.singular)} document without a name cannot be imported${files.length > 0 ? ` (${[...new Set(files)].join(', ')})` : ''}; nothing was imported`,
    );
  }
  const seen = new Map<string, (string | undefined)[]>();
  for (const item of named) seen.set(item.name as string, [...(seen.get(item.name as string) ?? []), item.file]);
  const twice = [...seen].filter(([, files]) => files.length > 1);
  if (twice.length > 0) {
    const [name, files] = twice[0]!;
    const where = files.every((f) => f !== undefined) ? ` (${[...new Set(files)].join(', ')})` : '';
    throw usage(`${files.length} documents are named ${def.singular} "${name}"${where}: import one of them; nothing was imported`);
  }
  return named as (ImportItem & { name: string })[];
}

/**
 * Imports each document on its own, in order, and answers how each ended. `onOutcome` hears each
 * as it ends. A refusal of the credentials or an unreachable platform stops the import: the
 * documents after it are not tried (the answer is shorter than `items`).
 */
export async function importEach(
  client: Client,
  def: ResourceDef,
  items: readonly ImportItem[],
  replace: boolean,
  onOutcome: (outcome: ImportOutcome) => void = () => undefined,
): Promise<ImportOutcome[]> {
  const backups = new Backups(def);
  const outcomes: ImportOutcome[] = [];
  for (const item of namedItems(def, items)) {
    const { doc, name } = item;
    const base = { doc, name, ...(item.file === undefined ? {} : { file: item.file }) };
    let outcome: ImportOutcome;
    try {
      const existing = await findExisting(client, def, doc, name);
      if (existing === undefined) {
        try {
          const written = await importOne(client, def, doc, `${def.singular} "${name}"`);
          outcome = {
            ...base,
            state: 'created',
            answer: written.answer,
            ...(written.stored === undefined ? {} : { stored: written.stored }),
          };
        } catch (err) {
          if (!(err instanceof CliError)) throw err;
          outcome = { ...base, state: 'refused', error: err };
        }
      } else if (!replace) {
        outcome = {
          ...base,
          state: 'exists',
          error: new CliError(`${def.singular} "${name}" already exists on ${client.url}; add --replace to overwrite it`, EXIT.FAILED),
        };
      } else {
        outcome = { ...base, ...(await replaceOne(client, def, doc, name, existing, backups)) };
      }
    } catch (err) {
      // reading what is there failed: nothing was written for this document
      if (!(err instanceof CliError)) throw err;
      outcome = { ...base, state: 'refused', error: err };
    }
    outcomes.push(outcome);
    onOutcome(outcome);
    if (stopsAll(outcome.error)) break;
  }
  return outcomes;
}
