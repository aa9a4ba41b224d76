import { CliError, EXIT } from '../errors';
import type { ApiResponse, Client } from '../http/client';
import { pathOf } from '../http/client';
import type { Doc } from '../resources/documents';
import { field, isDoc, unwrap } from '../resources/documents';
import { routePath } from '../resources/lookup';
import type { ResourceDef } from '../resources/registry';
import { RESOURCES, STAMPS, canonical } from '../resources/registry';
import type { BackupStore, InPlaceOutcome, Step } from './in-place';
import { guardInPlace, rollBack, sent } from './in-place';

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
 * Components the file adds are created through their own routes under the names the project's
 * members have (`@<project id>: <name>`) and taken into the project
 * (`POST …/projects/:id/components/add`, mode create, in the file's folder); components it leaves
 * out are deleted with their documents, last (`DELETE …/projects/:id/components/:iid`, mode
 * delete), as a delete and an import would have. Only what still has no route is answered with why
 * and replaced by the guarded delete and import of importing.ts: a component moved between folders
 * (components/add takes a folder for a component it adds; nothing moves one there), and a folder
 * tree that differs in more than the nodes of the components added and left out (no route changes a
 * project's folders; `PATCH` takes its name and description).
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

/** A component of the file that the project there does not have: created, then taken into the project. */
interface ComponentAddition {
  type: string;
  name: string;
  folder: string;
  /** Its number in the file, kept when free there. */
  iid: number;
  document: Doc;
}

/** A component there that the file leaves out: deleted with its document. */
interface ComponentRemoval {
  type: string;
  name: string;
  folder: string;
  /** Its number there. */
  iid: number;
  /** Its document as exported, to create it again should a later step be refused. */
  document: Doc;
}

/** What makes the project there the file's in place, or why nothing can. */
export type ProjectPlan = { changes: ComponentChange[]; added: ComponentAddition[]; removed: ComponentRemoval[] } | { why: string };

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

/**
 * The folder tree with each component node named by its key instead of its number (which differs
 * between platforms), the nodes of the components `leftOut` (keys) taken out.
 */
function keyedTree(folders: unknown, keys: ReadonlyMap<number, string>, leftOut: ReadonlySet<string>): unknown[] {
  const walk = (nodes: unknown[]): unknown[] =>
    nodes.flatMap((node): unknown[] => {
      if (!isDoc(node)) return [node];
      if (node.nodeType === 'component') {
        const key = keys.get(Number(node.iid)) ?? `#${String(node.iid)}`;
        return leftOut.has(key) ? [] : [{ nodeType: 'component', component: key }];
      }
      return [Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'children' && Array.isArray(v) ? walk(v) : v]))];
    });
  return walk(Array.isArray(folders) ? folders : []);
}

/**
 * The keyed tree with the node of component `key` put where `POST …/components/add` puts it: in the
 * folder of path `folder` (folders made as needed, after those there), or at the root for `/` when
 * the root lists components already.
 */
function withComponentNode(tree: readonly unknown[], folder: string, key: string): unknown[] {
  const node = { nodeType: 'component', component: key };
  const path = folder.split('/').filter((p) => p !== '');
  if (path.length === 0) return tree.some((n) => isDoc(n) && n.nodeType === 'component') ? [...tree, node] : [...tree];
  const into = (nodes: readonly unknown[], rest: readonly string[]): unknown[] => {
    const [name, ...deeper] = rest;
    if (name === undefined) return [...nodes, node];
    const at = nodes.findIndex((n) => isDoc(n) && n.nodeType === 'folder' && n.name === name);
    const existing = at >= 0 ? (nodes[at] as Doc) : undefined;
    const children = existing !== undefined && Array.isArray(existing.children) ? existing.children : [];
    const changed = { ...(existing ?? { nodeType: 'folder', name }), children: into(children, deeper) };
    return at >= 0 ? nodes.map((n, i) => (i === at ? changed : n)) : [...nodes, changed];
  };
  return into(tree, path);
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
  const keysOf = (components: Map<string, Doc>): Map<number, string> => new Map([...components].map(([k, c]) => [Number(c.iid), k]));
  const movedFolder = [...wanted]
    .filter(([k, c]) => there.has(k) && (str(c.folder) ?? '/') !== (str(there.get(k)?.folder) ?? '/'))
    .map(([k]) => k);
  if (movedFolder.length > 0)
    return {
      why: `the file moves ${movedFolder.join(', ')} to another folder, and the platform has no route that moves a component of a project between folders`,
    };
  // the tree there as the routes leave it: the nodes of those left out gone, those added put in their folders
  const goneKeys = new Set(gone);
  let expected = keyedTree(kept.folders, keysOf(there), goneKeys);
  for (const key of added) expected = withComponentNode(expected, str(wanted.get(key)?.folder) ?? '/', key);
  if (canonical(keyedTree(file.folders, keysOf(wanted), new Set())) !== canonical(expected))
    return {
      why: `the file's folders differ from those there in more than the components it adds or leaves out, and the platform has no route that changes a project's folders`,
    };
  const storedByIid = new Map<number, Doc>();
  for (const c of Array.isArray(stored.components) ? stored.components : []) if (isDoc(c)) storedByIid.set(Number(c.iid), c);
  const changes: ComponentChange[] = [];
  for (const [key, c] of wanted) {
    const thereComponent = there.get(key);
    // one the file adds is created, not changed
    if (thereComponent === undefined) continue;
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
  const component = (c: Doc) => ({
    type: String(c.type),
    name: String((c.document as Doc).name),
    folder: str(c.folder) ?? '/',
    iid: Number(c.iid),
    document: c.document as Doc,
  });
  return {
    changes,
    added: added.map((k) => component(wanted.get(k) as Doc)),
    removed: gone.map((k) => component(there.get(k) as Doc)),
  };
}

/** The resource whose update route changes a component of `type`. */
function componentResource(type: string): ResourceDef & { update: NonNullable<ResourceDef['update']> } {
  const def = RESOURCES.find((r) => r.plural === COMPONENT_RESOURCES[type]);
  if (def?.update === undefined) throw new Error(`no update route for project components of type ${type}`);
  return def as ResourceDef & { update: NonNullable<ResourceDef['update']> };
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
 * Creates the document of `addition` through its own route, named as a member of project `id`
 * (`@<id>: <name>`), and takes it into the project (`components/add`, mode create) in its folder,
 * under its number in the file when that is free there: the number it got. A refused add deletes the
 * document again.
 */
async function addComponent(
  client: Client,
  id: string,
  addition: Pick<ComponentAddition, 'type' | 'name' | 'folder' | 'iid' | 'document'>,
  taken: ReadonlySet<number>,
  what: string,
): Promise<number> {
  const def = componentResource(addition.type);
  if (def.create === undefined || def.delete === undefined)
    throw new Error(`no create or delete route for project components of type ${addition.type}`);
  const body = Object.fromEntries(Object.entries(addition.document).filter(([key]) => key !== '_id' && !STAMPS.includes(key)));
  const made = await sent(
    client,
    {
      method: def.create.route.method,
      path: routePath(def.create.route, undefined),
      json: def.create.wrap({ ...body, name: `@${id}: ${addition.name}` }),
    },
    what,
  );
  const createdDoc = unwrap(made.body);
  const reference = isDoc(createdDoc) ? str(createdDoc._id) : undefined;
  if (reference === undefined) throw new CliError(`${client.url} created ${what} without saying its id`, EXIT.FAILED);
  try {
    const res = await sent(
      client,
      {
        method: 'POST',
        path: pathOf('/automation-studio/projects/:id/components/add', { id }),
        json: {
          mode: 'create',
          components: [
            { type: addition.type, reference, folder: addition.folder, ...(taken.has(addition.iid) ? {} : { iid: addition.iid }) },
          ],
        },
      },
      what,
    );
    const components = field(unwrap(res.body), 'components');
    const entry = Array.isArray(components) ? components.filter(isDoc).find((c) => c.reference === reference) : undefined;
    if (entry === undefined) throw new CliError(`${client.url} took ${what} into the project without listing it`, EXIT.FAILED);
    return Number(entry.iid);
  } catch (err) {
    const key = def.delete.key === 'name' ? `@${id}: ${addition.name}` : reference;
    await client.send({ method: def.delete.route.method, path: routePath(def.delete.route, key) }).catch(() => undefined);
    throw err;
  }
}

/** Takes component `iid` out of project `id`, deleting its document; the project as answered. */
function removeComponent(client: Client, id: string, iid: number, what: string): Promise<ApiResponse> {
  return sent(
    client,
    {
      method: 'DELETE',
      path: pathOf('/automation-studio/projects/:id/components/:componentId', { id, componentId: String(iid) }),
      json: { options: { mode: 'delete' } },
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
  const guard = guardInPlace(backups, name, kept, there, what, 'project');
  if (!('release' in guard)) return guard;
  const { backup } = guard;
  const done: Step[] = [];
  const own = (d: Doc): Doc => ({ name: d.name, ...(typeof d.description === 'string' ? { description: d.description } : {}) });
  const projectPath = pathOf('/automation-studio/projects/:id', { id });
  try {
    for (const change of plan.changes) {
      const componentWhat = `${change.type} "${change.name}" of ${what}`;
      await writeComponent(client, change, change.file, componentWhat);
      done.push({
        what: `${change.type} "${change.name}" (${change.reference}, changed)`,
        undo: () => writeComponent(client, change, change.there, `the copy of ${componentWhat}`),
      });
    }
    const taken = new Set((Array.isArray(stored.components) ? stored.components : []).filter(isDoc).map((c) => Number(c.iid)));
    for (const addition of plan.added) {
      const componentWhat = `${addition.type} "${addition.name}" of ${what}`;
      const iid = await addComponent(client, id, addition, taken, componentWhat);
      taken.add(iid);
      done.push({
        what: `${addition.type} "${addition.name}" (component ${iid}, added)`,
        undo: async () => {
          await removeComponent(client, id, iid, `the ${componentWhat}, added`);
        },
      });
    }
    let res = await sent(client, { method: 'PATCH', path: projectPath, json: own(doc) }, what);
    done.push({
      what: `the name and description of ${what}`,
      undo: async () => {
        await sent(client, { method: 'PATCH', path: projectPath, json: own(kept) }, `the name and description of ${what} as they were`);
      },
    });
    // last: a document deleted comes back only as a copy (a new id)
    for (const removal of plan.removed) {
      const componentWhat = `${removal.type} "${removal.name}" of ${what}`;
      res = await removeComponent(client, id, removal.iid, componentWhat);
      done.push({
        what: `${removal.type} "${removal.name}" (component ${removal.iid}, deleted)`,
        undo: async () => {
          await addComponent(client, id, removal, taken, `the copy of ${componentWhat}`);
        },
      });
    }
    backups.remove(backup);
    const stored2 = unwrap(res.body);
    const counts = [
      plan.changes.length > 0 ? `${plan.changes.length} changed` : undefined,
      plan.added.length > 0 ? `${plan.added.length} added` : undefined,
      plan.removed.length > 0 ? `${plan.removed.length} deleted` : undefined,
    ].filter((c) => c !== undefined);
    return {
      state: 'updated',
      answer: res.body,
      ...(isDoc(stored2) ? { stored: stored2 } : {}),
      ...(counts.length === 0 ? {} : { detail: `its components: ${counts.join(', ')}` }),
    };
  } catch (err) {
    const failure =
      err instanceof CliError
        ? err
        : new CliError(`unexpected error: ${err instanceof Error ? err.message : String(err)}`, EXIT.FAILED, { cause: err });
    return await rollBack(failure, done, backup, backups, there, 'project');
  } finally {
    guard.release();
  }
}
