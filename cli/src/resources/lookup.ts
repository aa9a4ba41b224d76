// the platform's rule for project members' names (a pure module, bundled)
import { plainName, projectOf } from '@nap/contracts/dist/project-members';
import { CliError, EXIT, usage } from '../errors';
import type { Client } from '../http/client';
import { addressable, pathOf } from '../http/client';
import type { Doc } from './documents';
import { field, isDoc, itemsOf, str, totalOf, unwrap } from './documents';
import type { ResourceDef, Route } from './registry';
import { an } from './registry';

/** Page size for list routes that page (the platform's largest). */
const PAGE = 500;

export function routePath(route: Route, key: string | undefined): string {
  const params = /:([A-Za-z_]+)/.exec(route.path);
  if (params === null) return route.path;
  if (key === undefined) throw new Error(`${route.path} needs a key`);
  return pathOf(route.path, { [params[1] as string]: key });
}

/** Every document of a resource, page after page where the route pages. */
export async function listAll(client: Client, def: ResourceDef, limit?: number): Promise<{ items: Doc[]; body: unknown }> {
  const list = def.list;
  if (list === undefined) throw new CliError(`${def.plural} cannot be listed: the platform has no route for it`, EXIT.USAGE);
  if (list.paged !== true) {
    const res = await client.request({ method: list.route.method, path: list.route.path, query: list.query, json: list.body });
    const items = itemsOf(res.body);
    return { items: limit === undefined ? items : items.slice(0, limit), body: res.body };
  }
  const items: Doc[] = [];
  let firstBody: unknown;
  for (let skip = 0; ;) {
    const pageSize = limit === undefined ? PAGE : Math.min(PAGE, limit - items.length);
    const res = await client.request({ method: list.route.method, path: list.route.path, query: { ...list.query, skip, limit: pageSize } });
    firstBody ??= res.body;
    const page = itemsOf(res.body);
    items.push(...page);
    const total = totalOf(res.body);
    skip += page.length;
    if (
      page.length === 0 ||
      (total !== undefined && skip >= total) ||
      (limit !== undefined && items.length >= limit) ||
      page.length < pageSize
    )
      break;
  }
  return { items, body: firstBody };
}

export interface Found {
  /** The document as the list or get route answered it. */
  doc: Doc;
  /** The id or name the resource's routes take. */
  id: string | undefined;
  name: string | undefined;
}

function keyFor(def: ResourceDef, found: Found, kind: 'id' | 'name'): string {
  const key = kind === 'id' ? found.id : found.name;
  if (key === undefined) throw new CliError(`the ${def.singular} has no ${kind === 'id' ? 'id' : 'name'} to address it by`, EXIT.FAILED);
  return key;
}

async function fetchOne(client: Client, def: ResourceDef, key: string): Promise<Doc | undefined> {
  const get = def.get;
  // "", "." and ".." cannot be a segment of a URL path (a URL reads the dots as folders): no document is addressed so
  if (get === undefined || (get.body === undefined && !addressable(key))) return undefined;
  const res = await client.send({ method: get.route.method, path: routePath(get.route, key), json: get.body?.(key) });
  if (res.status === 404 || res.status === 400) return undefined;
  if (res.status >= 400) throw client.failure({ method: get.route.method, path: get.route.path }, res);
  const body = get.firstOfList === true ? itemsOf(res.body)[0] : unwrap(res.body);
  return isDoc(body) ? body : undefined;
}

/**
 * The document a name (or id) means. Names are what people type: a resource keyed by name is read
 * directly; others are looked up by name in the list (`equals[name]=` where the route filters),
 * then tried as an id.
 */
export async function lookup(
  client: Client,
  def: ResourceDef,
  nameOrId: string,
  opts: { unique?: boolean } = {},
): Promise<Found | undefined> {
  const found = (doc: Doc): Found => ({ doc, id: def.idOf(doc), name: def.nameOf(doc) });
  if (def.get?.key === 'name') {
    const doc = await fetchOne(client, def, nameOrId);
    return doc === undefined ? undefined : found(doc);
  }
  if (def.idFirst === true && def.get !== undefined) {
    // an id names one document directly; reading the whole list (every job) to find it would not scale
    const doc = await fetchOne(client, def, nameOrId);
    if (doc !== undefined) return found(doc);
  }
  const list = def.list;
  if (list !== undefined) {
    let candidates: Doc[];
    if (list.byName !== undefined) {
      const res = await client.request({
        method: list.route.method,
        path: list.route.path,
        query: { ...list.query, ...list.byName(nameOrId) },
      });
      candidates = itemsOf(res.body);
    } else {
      candidates = (await listAll(client, def)).items;
    }
    const named = candidates.filter((d) => def.nameOf(d) === nameOrId);
    if (opts.unique === true && named.length > 1) {
      const ids = named.map((d) => def.idOf(d) ?? '?');
      throw usage(`${ids.length} ${def.plural} are named "${nameOrId}" (${ids.join(', ')}): give the id of the one you mean`);
    }
    const byName = named[0] ?? candidates.find((d) => def.idOf(d) === nameOrId);
    if (byName !== undefined) return found(byName);
  }
  if (def.get !== undefined) {
    const doc = await fetchOne(client, def, nameOrId);
    if (doc !== undefined) return found(doc);
  }
  return undefined;
}

/**
 * The one document a name (or id) means, or a failure saying it is not there. Where names are not
 * unique (`sharedNames`), a name that several documents carry is a usage error listing their ids.
 */
export async function mustFind(client: Client, def: ResourceDef, nameOrId: string): Promise<Found> {
  if (nameOrId.trim() === '') throw usage(`an empty name: give the name or id of ${an(def.singular)}`);
  const found = await lookup(client, def, nameOrId, { unique: def.sharedNames === true });
  if (found === undefined) {
    const members = await memberNames(client, def, nameOrId);
    const hint =
      members.length === 0
        ? `\`nap get ${def.plural}\` lists them`
        : `${members.length === 1 ? 'a project has it' : `${members.length} projects have it`}: ${(await withProjectNames(client, members.slice(0, 3))).join(', ')}${members.length > 3 ? ` and ${members.length - 3} more` : ''}`;
    throw new CliError(`${def.singular} "${nameOrId}" not found on ${client.url}; ${hint}`, EXIT.FAILED);
  }
  return found;
}

/** `"@<id>: name" (project P)` for each member name, the project's name read from the platform. */
async function withProjectNames(client: Client, members: string[]): Promise<string[]> {
  return Promise.all(
    members.map(async (member) => {
      const res = await client
        .send({ method: 'GET', path: pathOf('/automation-studio/projects/:id', { id: projectOf(member) ?? '' }) })
        .catch(() => undefined);
      const project = res !== undefined && res.status < 400 ? str(field(unwrap(res.body), 'name')) : undefined;
      return project === undefined ? `"${member}"` : `"${member}" (project ${project})`;
    }),
  );
}

/**
 * Project members a plain name means (`@<project id>: <name>`, as an imported project names them):
 * what someone who typed the name they see in the project most likely meant.
 */
async function memberNames(client: Client, def: ResourceDef, name: string): Promise<string[]> {
  const list = def.list;
  if (list?.byMemberName === undefined || projectOf(name) !== undefined) return [];
  const res = await client.send({
    method: list.route.method,
    path: list.route.path,
    query: { ...list.query, ...list.byMemberName(name), limit: 25 },
  });
  if (res.status >= 400) return [];
  return itemsOf(res.body)
    .map((d) => def.nameOf(d))
    .filter((n): n is string => n !== undefined && projectOf(n) !== undefined && plainName(n) === name);
}

/**
 * The document on the target that an imported document would overwrite: the one of its name, by
 * name only (never a document whose id happens to be that name). Where names are shared (triggers:
 * unique within an automation), the one with the document's id, else the one of its name in the
 * same automation (`actionId`); several of them are refused with their ids.
 */
export async function findExisting(client: Client, def: ResourceDef, doc: Doc, name: string): Promise<Found | undefined> {
  const list = def.list;
  if (def.get?.key === 'name' || list === undefined) return lookup(client, def, name);
  const found = (d: Doc): Found => ({ doc: d, id: def.idOf(d), name: def.nameOf(d) });
  const shared = def.sharedNames === true;
  if (shared) {
    const id = def.idOf(doc);
    const byId = id === undefined ? undefined : await fetchOne(client, def, id);
    if (byId !== undefined) return found(byId);
  }
  const candidates =
    list.byName !== undefined
      ? itemsOf(
          (await client.request({ method: list.route.method, path: list.route.path, query: { ...list.query, ...list.byName(name) } })).body,
        )
      : (await listAll(client, def)).items;
  const same = candidates.filter((d) => def.nameOf(d) === name && (!shared || doc.actionId === undefined || d.actionId === doc.actionId));
  if (shared && same.length > 1)
    throw new CliError(
      `${same.length} ${def.plural} are named "${name}" on ${client.url} (${same.map((d) => def.idOf(d) ?? '?').join(', ')}): give the document the _id of the one to replace`,
      EXIT.USAGE,
    );
  return same[0] === undefined ? undefined : found(same[0]);
}

/** The whole document (the get route), falling back to what the list said. */
export async function fullDocument(client: Client, def: ResourceDef, found: Found): Promise<Doc> {
  if (def.get === undefined) return found.doc;
  const key = keyFor(def, found, def.get.key);
  return (await fetchOne(client, def, key)) ?? found.doc;
}

/** The document as the platform exports it. */
export async function exportDocument(client: Client, def: ResourceDef, found: Found): Promise<Doc> {
  const spec = def.export;
  if (spec === undefined) throw new Error(`${def.plural} has no export route`);
  const key = keyFor(def, found, spec.key);
  const res = await client.request({ method: spec.route.method, path: routePath(spec.route, key), json: spec.body?.(key, found.doc) });
  const doc = unwrap(res.body);
  if (!isDoc(doc)) throw new CliError(`${spec.route.method} ${spec.route.path} answered no document`, EXIT.FAILED);
  return doc;
}

export async function deleteFound(client: Client, def: ResourceDef, found: Found): Promise<unknown> {
  const spec = def.delete;
  if (spec === undefined) throw new Error(`${def.plural} has no delete route`);
  const key = keyFor(def, found, spec.key);
  const res = await client.request({ method: spec.route.method, path: routePath(spec.route, key), json: spec.body?.(key, found.doc) });
  return res.body;
}
