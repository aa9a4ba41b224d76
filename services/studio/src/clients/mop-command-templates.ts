import type { BusClient } from '@nap/bus';
import type { Caller } from '@nap/contracts';
import { AppError, commandTemplateSchema, isAppError, parseAs, withMembersMoved } from '@nap/contracts';
import { checked } from '../domain/checked';
import type { ComponentKind, ComponentState } from '../domain/projects';

/** The members mop sets itself (epoch-ms stamps and authors): a project's stamps are the source platform's. */
function withoutMopStamps(doc: Record<string, unknown>): Record<string, unknown> {
  const { _id: _i, created: _c, createdBy: _cb, lastUpdated: _l, lastUpdatedBy: _lb, ...rest } = doc;
  return rest;
}

/** Deletes through `remove`, and nothing when the document is already gone (404). */
async function ignoreMissing(remove: () => Promise<unknown>): Promise<void> {
  try {
    await remove();
  } catch (err) {
    if (!(err instanceof AppError) || err.status !== 404) throw err;
  }
}

/** Templates looked up one by one by name at most; more at once are found in one read of the list. */
const BY_NAME_AT_MOST = 8;

/**
 * MOP command templates as project components: they belong to the mop service, reached over the bus
 * as the caller (so mop applies the caller's rights). Mop finds templates by name, but a project holds
 * them by id: a template renamed through mop's own routes stays the project's. A few are looked up
 * by the names they had last (one small read each); those not found so (renamed or deleted), or more
 * than a few at once (a page of projects), cost one read of the whole list of templates.
 */
export function createMopCommandTemplates(client: BusClient): ComponentKind {
  type Found = Record<string, unknown> & { _id?: unknown; name?: unknown };
  /** The templates among `wanted` (id → name last known), by id; those gone are absent. */
  async function byId(wanted: ReadonlyMap<string, string>, caller: Caller): Promise<Map<string, Found>> {
    const found = new Map<string, Found>();
    if (wanted.size <= BY_NAME_AT_MOST)
      for (const [id, storedName] of wanted) {
        const [named] = (await client.call('mop.listATemplate', { params: { name: storedName } }, { caller })).body as Found[];
        if (named !== undefined && named._id === id) found.set(id, named);
      }
    if (found.size < wanted.size) {
      const all = (await client.call('mop.listTemplates', {}, { caller })).body as Found[];
      for (const t of all) if (typeof t._id === 'string' && wanted.has(t._id) && !found.has(t._id)) found.set(t._id, t);
    }
    return found;
  }
  return {
    async check(doc, member, caller) {
      const template = checked('command template', doc, () => parseAs(commandTemplateSchema, doc, member));
      const found = (await client.call('mop.listATemplate', { params: { name: template.name } }, { caller })).body;
      if (found.length > 0)
        throw new AppError(
          'TEMPLATE_ALREADY_EXISTS',
          `A command template named "${template.name}" already exists in mop; names are unique`,
        );
    },
    async create(doc, member, caller) {
      const template = parseAs(commandTemplateSchema, withoutMopStamps(doc), member);
      const answer = await client.call('mop.createTemplate', { body: { mop: template } }, { caller }).catch((err: unknown) => {
        // mop names the member of its own request (body.mop.name): the refusal is said of the project's
        throw isAppError(err) ? withMembersMoved(err, 'body.mop', member) : err;
      });
      const created = answer.body.data;
      if (typeof created._id !== 'string')
        throw new AppError('INTERNAL', `mop stored the command template "${template.name}" without an id`);
      return created._id;
    },
    remove: (id, caller) => ignoreMissing(() => client.call('mop.deleteTemplate', { params: { id } }, { caller })),
    async read(id, storedName, caller) {
      const found = (await byId(new Map([[id, storedName]]), caller)).get(id);
      if (found === undefined)
        throw new AppError('TEMPLATE_NOT_FOUND', `No command template with id "${id}" (last named "${storedName}") in mop`);
      return found;
    },
    async find(reference, caller) {
      // a template is named by its id or, as mop's own routes name it, its name
      const [named] = (await client.call('mop.listATemplate', { params: { name: reference } }, { caller })).body as Found[];
      const found = named ?? (await byId(new Map([[reference, reference]]), caller)).get(reference);
      if (found === undefined || typeof found._id !== 'string' || typeof found.name !== 'string') return null;
      return { ...found, _id: found._id, name: found.name };
    },
    nameTaken: async (name, caller) => (await client.call('mop.listATemplate', { params: { name } }, { caller })).body.length > 0,
    async rename(id, from, to, caller) {
      const found = (await byId(new Map([[id, from]]), caller)).get(id);
      if (found === undefined)
        throw new AppError('TEMPLATE_NOT_FOUND', `No command template with id "${id}" (last named "${from}") in mop`);
      if (found.name !== from)
        throw new AppError('CONFLICT', `The command template "${from}" was renamed "${String(found.name)}" meanwhile; try again`);
      const template = parseAs(commandTemplateSchema, { ...withoutMopStamps(found), name: to }, 'mop');
      await client.call('mop.updateTemplate', { params: { mopID: id }, body: { mop: template } }, { caller });
    },
    async statesOf(components, caller) {
      const found = await byId(new Map(components.map((c) => [c.reference, c.storedName])), caller);
      const states = new Map<string, ComponentState>();
      for (const [id, t] of found) if (typeof t.name === 'string') states.set(id, { storedName: t.name, document: t });
      return states;
    },
  };
}
