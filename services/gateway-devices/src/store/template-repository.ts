import { AppError, auditChanges, hasCode } from '@nap/contracts';
import type { AuditSink } from '@nap/bus';
import type { Caller, DeviceTemplateInput } from '@nap/contracts';
import type { DeviceTemplateDoc, GatewayCollections } from './collections';

/** A device template as answered (the spec's Device template record): the stored one with `id` for `_id`. */
export type DeviceTemplateView = { id: string } & Pick<
  DeviceTemplateDoc,
  'name' | 'template' | 'variables' | 'created' | 'updated' | 'createdBy' | 'updatedBy' | 'gbac'
>;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function view(doc: DeviceTemplateDoc): DeviceTemplateView {
  return {
    id: doc._id,
    name: doc.name,
    template: doc.template,
    variables: doc.variables ?? {},
    created: doc.created,
    updated: doc.updated,
    createdBy: doc.createdBy,
    updatedBy: doc.updatedBy,
    gbac: { read: doc.gbac?.read ?? [], write: doc.gbac?.write ?? [] },
  };
}

/**
 * Group-based access: a template whose `gbac.read` (or `write`) lists groups is open to callers in
 * one of them (write implies read); empty lists mean everyone with the operation's role. Admins pass.
 */
function allowed(doc: DeviceTemplateDoc, caller: Caller, mode: 'read' | 'write'): boolean {
  if (caller.roles.includes('admin')) return true;
  const write = doc.gbac?.write ?? [];
  const read = doc.gbac?.read ?? [];
  const groups = mode === 'write' ? write : read.length === 0 && write.length === 0 ? [] : [...read, ...write];
  return groups.length === 0 || groups.some((g) => caller.groups.includes(g));
}

/** Device templates of the configuration manager. */
export class TemplateRepository {
  constructor(private readonly c: GatewayCollections) {}

  private async find(idOrName: string): Promise<DeviceTemplateDoc> {
    const doc =
      (await this.c.deviceTemplates.findOne({ _id: { $eq: idOrName } })) ??
      (await this.c.deviceTemplates.findOne({ name: { $eq: idOrName } }));
    if (doc === null)
      throw new AppError('DEVICE_TEMPLATE_NOT_FOUND', `No device template with id or name "${idOrName}"`, { details: { id: idOrName } });
    return doc;
  }

  private async access(idOrName: string, caller: Caller, mode: 'read' | 'write'): Promise<DeviceTemplateDoc> {
    const doc = await this.find(idOrName);
    // named as the caller asked for it, unless the caller may read it: a refusal tells no more of it
    const named = mode === 'write' && allowed(doc, caller, 'read') ? doc.name : idOrName;
    if (!allowed(doc, caller, mode))
      throw new AppError(
        'GROUP_ACCESS_DENIED',
        `Device template "${named}" is not shared with any group of "${caller.username}" for ${mode}`,
      );
    return doc;
  }

  async get(idOrName: string, caller: Caller): Promise<DeviceTemplateView> {
    return view(await this.access(idOrName, caller, 'read'));
  }

  /** `POST /configuration_manager/templates/search`: name as a case-insensitive substring ('' matches all), readable templates only, by name. */
  async search(name: string, options: Record<string, unknown>, caller: Caller): Promise<{ total: number; list: DeviceTemplateView[] }> {
    const filter = name === '' ? {} : { name: { $regex: escapeRegExp(name), $options: 'i' } };
    const docs = (await this.c.deviceTemplates.find(filter, { sort: { name: 1 } })).filter((d) => allowed(d, caller, 'read'));
    const skip = typeof options.skip === 'number' && options.skip > 0 ? Math.floor(options.skip) : 0;
    const limit = typeof options.limit === 'number' && options.limit > 0 ? Math.floor(options.limit) : undefined;
    return { total: docs.length, list: docs.slice(skip, limit === undefined ? undefined : skip + limit).map(view) };
  }

  async create(input: DeviceTemplateInput, caller: Caller): Promise<DeviceTemplateView> {
    const stamp = new Date().toISOString();
    try {
      const doc = await this.c.deviceTemplates.insertOne({
        name: input.name,
        template: input.template,
        variables: input.variables ?? {},
        created: stamp,
        updated: stamp,
        createdBy: caller.username,
        updatedBy: caller.username,
        gbac: { read: input.gbac?.read ?? [], write: input.gbac?.write ?? [] },
      });
      return view(doc);
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY'))
        throw new AppError('DEVICE_TEMPLATE_ALREADY_EXISTS', `A device template named "${input.name}" exists`, { cause: err });
      throw err;
    }
  }

  async replace(idOrName: string, input: DeviceTemplateInput, caller: Caller, audit?: AuditSink): Promise<DeviceTemplateView> {
    const doc = await this.access(idOrName, caller, 'write');
    try {
      const updated = await this.c.deviceTemplates.findOneAndUpdate(
        { _id: { $eq: doc._id } },
        {
          $set: {
            name: input.name,
            template: input.template,
            variables: input.variables ?? {},
            gbac: { read: input.gbac?.read ?? [], write: input.gbac?.write ?? [] },
            updated: new Date().toISOString(),
            updatedBy: caller.username,
          },
        },
        { returnDocument: 'after' },
      );
      if (updated === null) throw new AppError('DEVICE_TEMPLATE_NOT_FOUND', `No device template with id "${doc._id}"`);
      audit?.audit({ target: { kind: 'device-template', id: doc._id, name: updated.name }, changes: auditChanges(doc, updated) });
      return view(updated);
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY'))
        throw new AppError('DEVICE_TEMPLATE_ALREADY_EXISTS', `A device template named "${input.name}" exists`, { cause: err });
      throw err;
    }
  }

  async delete(idOrName: string, caller: Caller): Promise<DeviceTemplateView> {
    const doc = await this.access(idOrName, caller, 'write');
    await this.c.deviceTemplates.deleteOne({ _id: { $eq: doc._id } });
    return view(doc);
  }
}
