import { randomUUID } from 'node:crypto';
import { AppError } from '@nap/contracts';
import type { AutomationDocument, Caller, CatalogAutomationDocument, ExportedAutomation } from '@nap/contracts';
import { isRecord } from '@nap/util';

/**
 * Automations of the operations manager and of the automation catalog: the records to store, made
 * from what a client submits (`POST` and `PUT /operations-manager/automations`,
 * `POST /automation_catalog/automations/import`). The handlers store them.
 */

/** An automation of the operations manager as stored. */
export type StoredAutomation = AutomationDocument & { _id: string; name: string };
/** An automation of the automation catalog as stored. */
export type StoredCatalogAutomation = CatalogAutomationDocument & { _id: string; name: string };

function groupIds(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((g): g is string => typeof g === 'string'))
    throw new AppError('VALIDATION_FAILED', `${where} must be an array of group ids`);
  return [...value];
}

/**
 * The automation to store from a submitted one, stamped by `caller` at `now` (epoch ms). An import
 * (`keepId`) keeps the submitted `_id`, `created` and `createdBy`. Throws 400 VALIDATION_FAILED.
 */
export function toAutomationRecord(input: Record<string, unknown>, caller: Caller, now: number, keepId: boolean): StoredAutomation {
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (name === '') throw new AppError('VALIDATION_FAILED', 'An automation needs a non-empty name');
  const gbac = isRecord(input.gbac) ? input.gbac : {};
  const t = new Date(now).toISOString();
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

function nameOf(item: ExportedAutomation): string {
  return typeof item.name === 'string' ? item.name.trim() : '';
}

function gbacOf(item: ExportedAutomation): { data: Record<string, unknown>; gbac: Record<string, unknown> } {
  const data = isRecord(item.data) ? item.data : {};
  return { data, gbac: isRecord(data.gbac) ? data.gbac : {} };
}

/** The group an exported gbac entry names: `{ name }` or the name itself. */
function groupNameOf(ref: unknown): string {
  return isRecord(ref) && typeof ref.name === 'string' ? ref.name : typeof ref === 'string' ? ref : '';
}

/**
 * The group names an exported automation refers to, as far as {@link toCatalogAutomation} reads
 * them before it would refuse the item: the group directory is needed only when this is not empty.
 */
export function catalogGroupRefs(item: ExportedAutomation): string[] {
  if (nameOf(item) === '') return [];
  const { gbac } = gbacOf(item);
  const refs: string[] = [];
  for (const kind of ['write', 'read'] as const) {
    const listed = gbac[kind];
    if (listed === undefined) continue;
    if (!Array.isArray(listed)) return refs;
    refs.push(...listed.map(groupNameOf));
  }
  return refs;
}

/**
 * The catalog automation to store from an exported one: group references (by name) become the
 * group ids of `groups` (name → id, the platform's group directory); a group that does not exist
 * here is 404 GROUP_NOT_FOUND, a malformed item 400 VALIDATION_FAILED.
 */
export function toCatalogAutomation(
  item: ExportedAutomation,
  caller: Caller,
  groups: ReadonlyMap<string, string>,
): StoredCatalogAutomation {
  const name = nameOf(item);
  if (name === '') throw new AppError('VALIDATION_FAILED', 'an exported automation needs a non-empty name');
  const { data, gbac } = gbacOf(item);
  const toIds = (refs: unknown, kind: string): string[] => {
    if (refs === undefined) return [];
    if (!Array.isArray(refs)) throw new AppError('VALIDATION_FAILED', `data.gbac.${kind} must be an array`);
    return refs.map((ref) => {
      const groupName = groupNameOf(ref);
      const id = groups.get(groupName);
      if (id === undefined)
        throw new AppError(
          'GROUP_NOT_FOUND',
          `data.gbac.${kind} names the group "${groupName}", which does not exist here; create it first`,
        );
      return id;
    });
  };
  return {
    ...item,
    _id: typeof item._id === 'string' && item._id !== '' ? item._id : randomUUID(),
    name,
    data: { ...data, gbac: { write: toIds(gbac.write, 'write'), read: toIds(gbac.read, 'read') } },
    lastModifiedBy: caller.username,
  };
}
