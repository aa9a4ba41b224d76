import { TRIGGER_SERVICE_MEMBERS } from '@nap/contracts/dist/trigger-kinds';
import { CliError, EXIT } from '../errors';
import type { ApiResponse, Client } from '../http/client';
import { pathOf } from '../http/client';
import type { Doc } from '../resources/documents';
import { isDoc, unwrap } from '../resources/documents';
import type { BackupStore, InPlaceOutcome, Step } from './in-place';
import { guardInPlace, refusal, rollBack, sent } from './in-place';

export type { BackupStore, InPlaceOutcome } from './in-place';

/**
 * `import --replace` of an automation whose triggers are not those there: the automation is updated
 * in place (`PATCH /operations-manager/automations/:id`), so that it keeps its id (its jobs, and
 * what names it, stay linked), then its triggers are made the file's one by one. A trigger of the
 * file is the one of its name there (names are how people tell an automation's triggers apart):
 * changed with `PATCH /operations-manager/triggers/:id` when its members differ (its id kept),
 * deleted and created again when its type differs (a trigger's type cannot change); triggers of
 * the file that none there names are created (`PUT /operations-manager/triggers`, which keeps an
 * `_id` as the automation's import does), and those there that the file does not name are deleted.
 *
 * What cannot be matched is refused before anything is written: two triggers of one name in the
 * file, or a name that two triggers there carry when the file's trigger has the `_id` of neither.
 *
 * A step refused halfway (a trigger the platform finds wrong after the automation was changed) is
 * rolled back, each step done undone in reverse order from the copy read before the first write,
 * so that an import either makes the automation the file's or leaves it as it was, as the other
 * updates in place and the platform's own import of an automation do. Reporting a half-changed
 * automation instead would leave it starting jobs in a state nobody wrote. Only when the rollback
 * itself fails is something left changed: the error then says which step could not be undone and
 * where the copy is (a file written before the first change, which `nap import automation FILE
 * --replace` makes the automation again).
 */

/** The members of a trigger that a file does not set: its ids and what the platform sets on every save. */
const NOT_SET_BY_A_FILE = new Set<string>(['_id', 'actionId', 'actionType', 'type', ...TRIGGER_SERVICE_MEMBERS]);
/** Members the platform takes as absent when null (as other platforms export a trigger without them). */
const NULL_AS_ABSENT = new Set(['schema', 'jst', 'formId']);
/** Members the platform stores as `{}` when null (a manual trigger without defaults). */
const NULL_AS_EMPTY = new Set(['formData']);
/** Optional members a change cannot take away with null (null is absent): '' says none. */
const EMPTY_AS_NONE = new Set(['jst', 'formId']);

interface TriggerChange {
  name: string;
  there: Doc;
  id: string;
  /** The members that differ, as the file has them. */
  changes: Doc;
}

/** What makes the triggers there the file's. */
export interface TriggerPlan {
  /** Triggers there that no trigger of the file names, or whose type the file's changes: deleted. */
  deletes: Doc[];
  changes: TriggerChange[];
  /** Triggers of the file that none there is (by name and type): created, started by the automation. */
  creates: Doc[];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** JSON with the members of every object in name order: two values that mean the same give the same text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Doc).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * The members of the file's trigger that differ from the one there: those the file sets (what it
 * leaves out stays, as the change route keeps it), a null the platform takes as absent (or as
 * `{}`) being the same as that.
 */
export function triggerChanges(file: Doc, there: Doc): Doc {
  const changes: Doc = {};
  for (const [key, value] of Object.entries(file)) {
    if (NOT_SET_BY_A_FILE.has(key)) continue;
    if (value === null && NULL_AS_ABSENT.has(key)) continue;
    if (value === null && NULL_AS_EMPTY.has(key) && canonical(there[key] ?? {}) === '{}') continue;
    if (canonical(value) !== canonical(there[key])) changes[key] = value;
  }
  return changes;
}

/** The change that makes a trigger changed with `changes` the one there again. */
function undoOf(changes: Doc, there: Doc): Doc {
  const undo: Doc = {};
  for (const key of Object.keys(changes)) undo[key] = key in there ? there[key] : EMPTY_AS_NONE.has(key) ? '' : null;
  return undo;
}

/**
 * Matches the file's triggers to those there (both as exported), by name; a usage error (the
 * file's) or a refusal (what is there) when one cannot be matched, before anything is written.
 */
export function planTriggers(automation: string, fileTriggers: unknown, thereTriggers: readonly Doc[]): TriggerPlan {
  const what = `automation "${automation}"`;
  if (!Array.isArray(fileTriggers)) throw new CliError(`${what}: triggers must be an array of triggers; nothing was changed`, EXIT.USAGE);
  const wanted: Doc[] = [];
  const names = new Set<string>();
  fileTriggers.forEach((t: unknown, i) => {
    const name = isDoc(t) ? str(t.name)?.trim() : undefined;
    if (!isDoc(t) || name === undefined || name === '')
      throw new CliError(
        `${what}: triggers[${i}] has no name, by which nap matches it to a trigger there; nothing was changed`,
        EXIT.USAGE,
      );
    if (names.has(name))
      throw new CliError(
        `${what}: the file has two triggers named "${name}", and nap matches the file's triggers to those there by name: give each its own; nothing was changed`,
        EXIT.USAGE,
      );
    names.add(name);
    wanted.push(t);
  });
  const byName = new Map<string, Doc[]>();
  for (const t of thereTriggers) {
    const name = str(t.name)?.trim() ?? '';
    byName.set(name, [...(byName.get(name) ?? []), t]);
  }
  const matched = new Set<Doc>();
  const plan: TriggerPlan = { deletes: [], changes: [], creates: [] };
  for (const file of wanted) {
    const name = (file.name as string).trim();
    const candidates = byName.get(name) ?? [];
    let there = candidates.length === 1 ? candidates[0] : candidates.find((t) => t._id !== undefined && t._id === file._id);
    if (there === undefined && candidates.length > 1)
      throw new CliError(
        `${what} has ${candidates.length} triggers named "${name}" there (${candidates.map((t) => String(t._id)).join(', ')}) and the file's has the _id of none: nap cannot tell which one it replaces; rename one there, or give the file's the _id of one; nothing was changed`,
        EXIT.FAILED,
      );
    // a trigger's type cannot change: the one there goes, the file's comes
    if (there !== undefined && file.type !== undefined && file.type !== there.type) there = undefined;
    if (there === undefined) {
      plan.creates.push(file);
      continue;
    }
    matched.add(there);
    const changes = triggerChanges(file, there);
    if (Object.keys(changes).length > 0) plan.changes.push({ name, there, id: String(there._id), changes });
  }
  plan.deletes = thereTriggers.filter((t) => !matched.has(t));
  return plan;
}

/** The members a failed answer names (`details[].member`). */
function refusedMembers(res: ApiResponse): string[] {
  const details = isDoc(res.body) && Array.isArray(res.body.details) ? res.body.details : [];
  return details.filter(isDoc).map((d) => String(d.member));
}

/** Imports one trigger (its `_id` kept, as the automation's import keeps it): the trigger stored, and the platform's note. */
async function importTrigger(client: Client, trigger: Doc, what: string): Promise<{ stored: Doc; note?: string }> {
  const res = await sent(client, { method: 'PUT', path: '/operations-manager/triggers', json: { triggers: [trigger] } }, what);
  const item = isDoc(res.body) && Array.isArray(res.body.imported) ? res.body.imported[0] : undefined;
  if (!isDoc(item) || item.success !== true || !isDoc(item.created)) {
    const message = isDoc(item) && typeof item.message === 'string' ? item.message : 'the platform answered no trigger';
    throw new CliError(`${client.url} refused ${what}: ${message}`, EXIT.FAILED);
  }
  const message = str(item.message) ?? '';
  const at = message.indexOf('. Note: ');
  return { stored: item.created, ...(at === -1 ? {} : { note: message.slice(at + '. Note: '.length) }) };
}

function count(n: number, word: string): string | undefined {
  return n === 0 ? undefined : `${n} ${word}`;
}

/**
 * Updates the automation there (`existing`, as exported: `kept`) in place to the file's `doc`, its
 * triggers made the file's: see the module's comment. `patchBody` is the body of the automation's
 * change route for a document.
 */
export async function updateAutomationInPlace(
  client: Client,
  doc: Doc,
  name: string,
  id: string,
  kept: Doc,
  patchBody: (doc: Doc) => Doc,
  backups: BackupStore,
): Promise<InPlaceOutcome> {
  const what = `automation "${name}"`;
  const there = `the automation "${name}" there`;
  const thereTriggers = (Array.isArray(kept.triggers) ? kept.triggers : []).filter(isDoc);
  let plan: TriggerPlan;
  try {
    plan = planTriggers(name, doc.triggers, thereTriggers);
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    return { state: 'refused', error: err };
  }
  const guard = guardInPlace(backups, name, kept, there, what, 'automation');
  if (!('release' in guard)) return guard;
  const { backup } = guard;
  const done: Step[] = [];
  const notes: string[] = [];
  let changed = 0;
  try {
    let answer: unknown;
    try {
      const res = await sent(
        client,
        { method: 'PATCH', path: pathOf('/operations-manager/automations/:id', { id }), json: patchBody(doc) },
        what,
      );
      answer = res.body;
      done.push({
        what: `the automation's own members`,
        undo: async () => {
          await sent(client, { method: 'PATCH', path: pathOf('/operations-manager/automations/:id', { id }), json: patchBody(kept) }, what);
        },
      });
      for (const t of plan.deletes) {
        const triggerWhat = `trigger "${String(t.name)}" of ${what}`;
        await sent(client, { method: 'DELETE', path: pathOf('/operations-manager/triggers/:id', { id: String(t._id) }) }, triggerWhat);
        done.push({
          what: `trigger "${String(t.name)}" (${String(t._id)}, deleted)`,
          undo: async () => {
            await importTrigger(client, t, `the copy of ${triggerWhat}`);
          },
        });
      }
      for (const change of plan.changes) {
        const triggerWhat = `trigger "${change.name}" of ${what}`;
        const patch = (changes: Doc): Promise<ApiResponse> =>
          client.send({ method: 'PATCH', path: pathOf('/operations-manager/triggers/:id', { id: change.id }), json: changes });
        let changes = change.changes;
        let res2: ApiResponse | undefined = await patch(changes);
        // an event trigger on an event this platform does not publish stays disabled, as the import of the automation takes it in
        if (
          res2.status === 400 &&
          change.there.type === 'eventSystem' &&
          changes.enabled !== false &&
          refusedMembers(res2).includes('body.topic')
        ) {
          changes = { ...changes, enabled: false };
          if (change.there.enabled === false) delete changes.enabled;
          res2 = Object.keys(changes).length === 0 ? undefined : await patch(changes);
          if (res2 === undefined || res2.status < 400)
            notes.push(`trigger "${change.name}" stays disabled: "${String(change.there.topic)}" is no event this platform publishes`);
        }
        if (res2 !== undefined && res2.status >= 400)
          throw refusal(
            client,
            { method: 'PATCH', path: pathOf('/operations-manager/triggers/:id', { id: change.id }) },
            res2,
            triggerWhat,
          );
        const applied = changes;
        if (Object.keys(applied).length === 0) continue;
        changed += 1;
        done.push({
          what: `trigger "${change.name}" (${change.id}, changed)`,
          undo: async () => {
            await sent(
              client,
              { method: 'PATCH', path: pathOf('/operations-manager/triggers/:id', { id: change.id }), json: undoOf(applied, change.there) },
              triggerWhat,
            );
          },
        });
      }
      // an _id the file gives that a trigger there keeps is not the new trigger's
      const keptIds = new Set(thereTriggers.filter((t) => !plan.deletes.includes(t)).map((t) => String(t._id)));
      for (const t of plan.creates) {
        const triggerWhat = `trigger "${String(t.name)}" of ${what}`;
        const submitted: Doc = { ...t, actionId: id };
        if (typeof t._id === 'string' && keptIds.has(t._id)) delete submitted._id;
        const created = await importTrigger(client, submitted, triggerWhat);
        if (created.note !== undefined) notes.push(created.note);
        const createdId = String(created.stored._id);
        done.push({
          what: `trigger "${String(t.name)}" (${createdId}, created)`,
          undo: async () => {
            await sent(client, { method: 'DELETE', path: pathOf('/operations-manager/triggers/:id', { id: createdId }) }, triggerWhat);
          },
        });
      }
    } catch (err) {
      // whatever stopped it, what was done is undone
      const failure =
        err instanceof CliError
          ? err
          : new CliError(`unexpected error: ${err instanceof Error ? err.message : String(err)}`, EXIT.FAILED, { cause: err });
      return await rollBack(failure, done, backup, backups, there, 'automation');
    }
    backups.remove(backup);
    const created = plan.creates.filter((t) => !plan.deletes.some((d) => d.name === t.name)).length;
    const replaced = plan.creates.length - created;
    const detail = [
      count(changed, 'changed'),
      count(replaced, 'replaced (its type changed)'),
      count(created, 'created'),
      count(plan.deletes.length - replaced, 'deleted'),
    ].filter((p): p is string => p !== undefined);
    const stored = unwrap(answer);
    return {
      state: 'updated',
      answer,
      ...(isDoc(stored) ? { stored } : {}),
      detail: `its triggers: ${detail.length === 0 ? 'unchanged' : detail.join(', ')}`,
      ...(notes.length > 0 ? { notes } : {}),
    };
  } finally {
    guard.release();
  }
}
