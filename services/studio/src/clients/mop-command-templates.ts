import type { BusClient } from '@nap/bus';
import { AppError, commandTemplateSchema, parseAs } from '@nap/contracts';
import { checked } from '../domain/checked';
import type { ComponentKind } from '../domain/projects';

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

/**
 * MOP command templates as project components: they belong to the mop service, reached over the bus
 * as the caller (so mop applies the caller's rights), and found by name.
 */
export function createMopCommandTemplates(client: BusClient): ComponentKind {
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
      const created = (await client.call('mop.createTemplate', { body: { mop: template } }, { caller })).body.data;
      if (typeof created._id !== 'string')
        throw new AppError('INTERNAL', `mop stored the command template "${template.name}" without an id`);
      return created._id;
    },
    remove: (id, caller) => ignoreMissing(() => client.call('mop.deleteTemplate', { params: { id } }, { caller })),
    async read(id, storedName, caller) {
      const [found] = (await client.call('mop.listATemplate', { params: { name: storedName } }, { caller })).body;
      if (found === undefined || found._id !== id)
        throw new AppError('TEMPLATE_NOT_FOUND', `No command template "${storedName}" (id "${id}") in mop`);
      return found;
    },
  };
}
