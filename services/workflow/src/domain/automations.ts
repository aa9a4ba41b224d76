import { randomUUID } from 'node:crypto';
import { AppError } from '@nap/contracts';
import type {
  AutomationDocument,
  Caller,
  CatalogAutomationDocument,
  ExportedAutomation,
  ImportResult,
  ImportResultItem,
} from '@nap/contracts';

/** An automation of the operations manager as stored. */
export type StoredAutomation = AutomationDocument & { _id: string; name: string };
/** An automation of the automation catalog as stored. */
export type StoredCatalogAutomation = CatalogAutomationDocument & { _id: string; name: string };

/** Where automations are kept; both inserts fail with 409 AUTOMATION_ALREADY_EXISTS for a name or id in use. */
export interface AutomationStore {
  insertAutomation(doc: StoredAutomation): Promise<StoredAutomation>;
  insertCatalogAutomation(doc: StoredCatalogAutomation): Promise<StoredCatalogAutomation>;
}

/** Resolves group names of an export to group ids here; undefined for a name that does not exist. */
export type GroupResolver = () => Promise<Map<string, string>>;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function groupIds(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((g): g is string => typeof g === 'string'))
    throw new AppError('VALIDATION_FAILED', `${where} must be an array of group ids`);
  return [...value];
}

/** Automations of the operations manager and of the automation catalog (operations 1–3). */
export class AutomationDomain {
  constructor(private readonly store: AutomationStore) {}

  private prepare(input: Record<string, unknown>, caller: Caller, keepId: boolean): StoredAutomation {
    const name = typeof input.name === 'string' ? input.name.trim() : '';
    if (name === '') throw new AppError('VALIDATION_FAILED', 'An automation needs a non-empty name');
    const gbac = isObject(input.gbac) ? input.gbac : {};
    const t = new Date().toISOString();
    return {
      ...input,
      _id: keepId && typeof input._id === 'string' && input._id !== '' ? input._id : randomUUID(),
      name,
      description: typeof input.description === 'string' ? input.description : '',
      componentType: typeof input.componentType === 'string' ? input.componentType : null,
      componentName: typeof input.componentName === 'string' ? input.componentName : null,
      componentId: typeof input.componentId === 'string' ? input.componentId : null,
      gbac: { write: groupIds(gbac.write, 'gbac.write'), read: groupIds(gbac.read, 'gbac.read') },
      created: keepId && typeof input.created === 'string' ? input.created : t,
      createdBy: keepId && typeof input.createdBy === 'string' ? input.createdBy : caller.username,
      lastUpdated: t,
      lastUpdatedBy: caller.username,
    };
  }

  /** Operation 3: creates one automation; 409 AUTOMATION_ALREADY_EXISTS for a name in use. */
  async create(input: AutomationDocument, caller: Caller): Promise<StoredAutomation> {
    return this.store.insertAutomation(this.prepare(input, caller, false));
  }

  /** Operation 2: imports automation documents, each reported on its own. */
  async import(items: Record<string, unknown>[], caller: Caller): Promise<ImportResult<Record<string, unknown>, StoredAutomation>> {
    const imported: ImportResultItem<Record<string, unknown>, StoredAutomation>[] = [];
    for (const [i, item] of items.entries()) {
      try {
        const created = await this.store.insertAutomation(this.prepare(item, caller, true));
        imported.push({ success: true, message: `Automation "${created.name}" imported`, original: item, created });
      } catch (err) {
        imported.push({
          success: false,
          message: `automations[${i}]: ${err instanceof Error ? err.message : String(err)}`,
          original: item,
          created: null,
        });
      }
    }
    const ok = imported.filter((r) => r.success).length;
    return { status: 'success', message: `Imported ${ok} of ${items.length} automations`, imported };
  }

  /**
   * Operation 1: imports exported automations into the catalog; group references (by name) become
   * group ids here, and an item naming a group that does not exist fails on its own.
   */
  async importCatalog(
    items: ExportedAutomation[],
    caller: Caller,
    resolveGroups: GroupResolver,
  ): Promise<ImportResult<ExportedAutomation, StoredCatalogAutomation>> {
    let groups: Map<string, string> | undefined;
    const imported: ImportResultItem<ExportedAutomation, StoredCatalogAutomation>[] = [];
    for (const [i, item] of items.entries()) {
      try {
        const name = typeof item.name === 'string' ? item.name.trim() : '';
        if (name === '') throw new AppError('VALIDATION_FAILED', 'an exported automation needs a non-empty name');
        const data = isObject(item.data) ? item.data : {};
        const gbac = isObject(data.gbac) ? data.gbac : {};
        const toIds = async (refs: unknown, kind: string): Promise<string[]> => {
          if (refs === undefined) return [];
          if (!Array.isArray(refs)) throw new AppError('VALIDATION_FAILED', `data.gbac.${kind} must be an array`);
          const out: string[] = [];
          for (const ref of refs) {
            const groupName = isObject(ref) && typeof ref.name === 'string' ? ref.name : typeof ref === 'string' ? ref : '';
            groups ??= await resolveGroups();
            const id = groups.get(groupName);
            if (id === undefined)
              throw new AppError(
                'GROUP_NOT_FOUND',
                `data.gbac.${kind} names the group "${groupName}", which does not exist here; create it first`,
              );
            out.push(id);
          }
          return out;
        };
        const doc: StoredCatalogAutomation = {
          ...item,
          _id: typeof item._id === 'string' && item._id !== '' ? item._id : randomUUID(),
          name,
          data: { ...data, gbac: { write: await toIds(gbac.write, 'write'), read: await toIds(gbac.read, 'read') } },
          lastModifiedBy: caller.username,
        };
        const created = await this.store.insertCatalogAutomation(doc);
        imported.push({ success: true, message: `Automation "${name}" imported`, original: item, created });
      } catch (err) {
        imported.push({
          success: false,
          message: `automations[${i}]: ${err instanceof Error ? err.message : String(err)}`,
          original: item,
          created: null,
        });
      }
    }
    const ok = imported.filter((r) => r.success).length;
    return { status: 'success', message: `Imported ${ok} of ${items.length} automations`, imported };
  }
}
