import { CliError, EXIT } from '../errors';
import type { ApiRequest, ApiResponse, Client } from '../http/client';
import { pathOf, platformMessage } from '../http/client';
import type { Doc } from '../resources/documents';
import { terminalText } from '../output/terminal';
import { isDoc, unwrap } from '../resources/documents';
import { routePath } from '../resources/lookup';
import type { ResourceDef } from '../resources/registry';
import { RESOURCES, STAMPS, canonical } from '../resources/registry';
import type { BackupStore, InPlaceOutcome, Step } from './automation-in-place';
import { rollBack } from './automation-in-place';

/**
 * `import --replace` of a project: the project there is updated in place, so that it keeps its id
 * and every component its id (the jobs of its workflows, and what names them, stay linked). Its
 * components are matched to the file's by type and name (a component's name in the project, as
 * `nap export project` writes it): each whose document differs is replaced through its own route
 * (`PUT /automation-studio/automations/:id` for a workflow, `PUT /transformations/:id`,
 * `PUT /automation-studio/templates/:id`, `PUT /mop/updateTemplate/:name`,
 * `PUT /formbuilder/forms/:id`), under the name it is stored as; then the project's own name and
 * description change (`PATCH /automation-studio/projects/:id`). A step refused halfway undoes the
 * steps done, newest first, from the copy read before the first write (automation-in-place.ts).
 *
 * The platform has no route that adds a component to a project, takes one out of it or changes its
 * folders: `PATCH …/projects/:id` takes its name and description only, a project is made with its
 * components by its import alone, and a component deleted through its own route stays named in the
 * project as gone (`metadata.componentsGone`). A file whose components are not those there (one
 * added or left out, by type and name) or whose folders differ is therefore answered with why, and
 * replaced by the guarded delete and import of importing.ts: that case only.
 */

/** The resource of each component type: its update route changes a component in place. */
const COMPONENT_RESOURCES: Readonly<Record<string, string>> = {
  workflow: 'workflows',
  transformation: 'transformations',
  template: 'templates',
  mopCommandTemplate: 'command-templates',
  jsonForm: 'forms',
};

/** A component of the file matched to the one there whose document differs. */
interface ComponentChange {
  type: string;
  name: string;
  /** The document as the file has it, and as the platform exported the one there. */
  file: Doc;
  there: Doc;
  /** Where the document there lives: its id (its name for MOP templates), and the name it is stored under. */
  reference: string;
  storedName: string;
}

/** What makes the project there the file's in place, or why nothing can. */
export type ProjectPlan = { changes: ComponentChange[] } | { why: string };

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The key a component is matched by: its type and its name in the project. */
function keyOf(component: Doc): string | undefined {
  const type = str(component.type);
  const name = isDoc(component.document) ? str(component.document.name) : undefined;
  return type === undefined || name === undefined ? undefined : `${type} "${name}"`;
}

/** A document as compared: without its id, its name (matched already) and the stamps the platform sets on each save. */
function comparable(doc: Doc): string {
  return canonical(Object.fromEntries(Object.entries(doc).filter(([key]) => key !== '_id' && key !== 'name' && !STAMPS.includes(key))));
}

/** The folder tree with each component named by its key instead of its number (which differs between platforms). */
function foldersByKey(folders: unknown, keys: ReadonlyMap<number, string>): string {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isDoc(node)) return node;
    if (node.nodeType === 'component') return { nodeType: 'component', component: keys.get(Number(node.iid)) ?? `#${String(node.iid)}` };
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'children' ? walk(v) : v]));
  };
  return canonical(walk(Array.isArray(folders) ? folders : []));
}

/** The components of a project document by key, with their numbers; a usage error for one the file cannot be matched by. */
function componentsByKey(project: string, doc: Doc, side: 'file' | 'there'): Map<string, Doc> {
  const components = Array.isArray(doc.components) ? doc.components : [];
  const byKey = new Map<string, Doc>();
  components.forEach((c: unknown, i) => {
    const key = isDoc(c) ? keyOf(c) : undefined;
    if (side === 'file' && (key === undefined || !isDoc(c)))
      throw new CliError(
        `project "${project}": components[${i}] has no type or no document.name, by which nap matches it to a component there; nothing was changed`,
        EXIT.USAGE,
      );
    if (side === 'file' && byKey.has(key as string))
      throw new CliError(
        `project "${project}": the file has two components that are ${key as string}: give each its own name; nothing was changed`,
        EXIT.USAGE,
      );
    if (key !== undefined && isDoc(c)) byKey.set(key, c);
  });
  return byKey;
}

/**
 * Matches the file's components to those there (`kept`, as exported; `stored`, the project as the
 * platform lists it, says where each document lives): the changes that make the project there the
 * file's, or why only a delete and an import can. A usage error for a file whose components cannot
 * be matched, before anything is written.
 */
export function planProject(project: string, file: Doc, kept: Doc, stored: Doc): ProjectPlan {
  const wanted = componentsByKey(project, file, 'file');
  const there = componentsByKey(project, kept, 'there');
  const added = [...wanted.keys()].filter((k) => !there.has(k));
  const gone = [...there.keys()].filter((k) => !wanted.has(k));
  if (added.length > 0 || gone.length > 0) {
    const parts = [
      added.length > 0 ? `adds ${added.join(', ')}` : undefined,
      gone.length > 0 ? `leaves out ${gone.join(', ')}` : undefined,
    ];
    return {
      why: `the file ${parts.filter((p) => p !== undefined).join(' and ')}, and the platform has no route that adds a component to a project or takes one out`,
    };
  }
  const keysOf = (components: Map<string, Doc>): Map<number, string> => new Map([...components].map(([k, c]) => [Number(c.iid), k]));
  const movedFolder = [...wanted].filter(([k, c]) => (str(c.folder) ?? '/') !== (str(there.get(k)?.folder) ?? '/')).map(([k]) => k);
  if (movedFolder.length > 0 || foldersByKey(file.folders, keysOf(wanted)) !== foldersByKey(kept.folders, keysOf(there)))
    return {
      why: `the file's folders are not those there${movedFolder.length > 0 ? ` (${movedFolder.join(', ')} moved)` : ''}, and the platform has no route that changes a project's folders`,
    };
  const storedByIid = new Map<number, Doc>();
  for (const c of Array.isArray(stored.components) ? stored.components : []) if (isDoc(c)) storedByIid.set(Number(c.iid), c);
  const changes: ComponentChange[] = [];
  for (const [key, c] of wanted) {
    const thereComponent = there.get(key) as Doc;
    const fileDoc = c.document as Doc;
    const thereDoc = thereComponent.document as Doc;
    if (comparable(fileDoc) === comparable(thereDoc)) continue;
    const record = storedByIid.get(Number(thereComponent.iid));
    const reference = str(record?.reference);
    const storedName = str(record?.storedName);
    if (reference === undefined || storedName === undefined)
      return { why: `the platform did not say where its ${key} is stored, so it cannot be changed through its own route` };
    changes.push({ type: String(c.type), name: String(fileDoc.name), file: fileDoc, there: thereDoc, reference, storedName });
  }
  return { changes };
}

/** The resource whose update route changes a component of `type`. */
function componentResource(type: string): ResourceDef & { update: NonNullable<ResourceDef['update']> } {
  const def = RESOURCES.find((r) => r.plural === COMPONENT_RESOURCES[type]);
  if (def?.update === undefined) throw new Error(`no update route for project components of type ${type}`);
  return def as ResourceDef & { update: NonNullable<ResourceDef['update']> };
}

/** Sends a step; a refusal thrown: 401 and 403 stop the command (exit 5) as everywhere, others exit 1 naming what was refused. */
async function sent(client: Client, req: ApiRequest, what: string): Promise<ApiResponse> {
  const res = await client.send(req);
  if (res.status < 400) return res;
  if (res.status === 401 || res.status === 403) throw client.failure(req, res);
  const { code, message } = platformMessage(res.body);
  throw new CliError(`${client.url} refused ${what}: ${message} (${res.status}${code === undefined ? '' : ` ${code}`})`, EXIT.FAILED);
}

/** Writes `doc` as the component there of `change`, under the name it is stored as. */
async function writeComponent(client: Client, change: ComponentChange, doc: Doc, what: string): Promise<void> {
  const def = componentResource(change.type);
  const body = Object.fromEntries(Object.entries(doc).filter(([key]) => key !== '_id' && !STAMPS.includes(key)));
  const key = def.update.key === 'name' ? change.storedName : change.reference;
  await sent(
    client,
    {
      method: def.update.route.method,
      path: routePath(def.update.route, key),
      json: def.update.wrap({ ...body, name: change.storedName }),
    },
    what,
  );
}

/**
 * Updates the project there (`id`; `kept` as exported, `stored` as listed) in place to the file's
 * `doc`: see the module's comment. Answers `{ why }`, having written nothing, when only a delete and
 * an import can make it the file's.
 */
export async function updateProjectInPlace(
  client: Client,
  doc: Doc,
  name: string,
  id: string,
  kept: Doc,
  stored: Doc,
  backups: BackupStore,
): Promise<InPlaceOutcome | { why: string }> {
  const what = `project "${name}"`;
  const there = `the project "${name}" there`;
  let plan: ProjectPlan;
  try {
    plan = planProject(name, doc, kept, stored);
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    return { state: 'refused', error: err };
  }
  if ('why' in plan) return plan;
  let backup: string;
  try {
    backup = backups.write(name, kept);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    return { state: 'refused', error: new CliError(`no copy of ${there} can be written (${reason}), so it was not changed`, EXIT.FAILED) };
  }
  const done: Step[] = [];
  const own = (d: Doc): Doc => ({ name: d.name, ...(typeof d.description === 'string' ? { description: d.description } : {}) });
  const projectPath = pathOf('/automation-studio/projects/:id', { id });
  // Ctrl-C halfway must not leave the copy unsaid
  const onInterrupt = (): void => {
    process.stderr.write(
      terminalText(
        `\nnap: interrupted while updating ${what} in place: it may be changed in part; its copy as it was is ${backup} (\`nap import project ${backup} --replace\` makes it that again)\n`,
        false,
      ),
    );
    process.exit(130);
  };
  process.once('SIGINT', onInterrupt);
  try {
    for (const change of plan.changes) {
      const componentWhat = `${change.type} "${change.name}" of ${what}`;
      await writeComponent(client, change, change.file, componentWhat);
      done.push({
        what: `${change.type} "${change.name}" (${change.reference}, changed)`,
        undo: () => writeComponent(client, change, change.there, `the copy of ${componentWhat}`),
      });
    }
    const res = await sent(client, { method: 'PATCH', path: projectPath, json: own(doc) }, what);
    backups.remove(backup);
    const stored2 = unwrap(res.body);
    return {
      state: 'updated',
      answer: res.body,
      ...(isDoc(stored2) ? { stored: stored2 } : {}),
      ...(plan.changes.length === 0 ? {} : { detail: `its components: ${plan.changes.length} changed` }),
    };
  } catch (err) {
    const failure =
      err instanceof CliError
        ? err
        : new CliError(`unexpected error: ${err instanceof Error ? err.message : String(err)}`, EXIT.FAILED, { cause: err });
    return await rollBack(failure, done, backup, backups, there, 'project');
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}
