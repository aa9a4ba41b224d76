import { randomUUID } from 'node:crypto';
import { AppError, checkNotReservedKey, checkPrintableName } from '@nap/contracts';
import type { AutomationDocument, Caller, CatalogAutomationDocument, ExportedAutomation, UpdateAutomationBody } from '@nap/contracts';
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

/**
 * Group-based access to an automation (`gbac`), as on every group-scoped record of the platform: an
 * automation whose `gbac.read` or `gbac.write` lists groups is open to callers in one of them (write
 * implies read); empty lists mean everyone with the operation's role. Admins (and the platform) pass.
 */
export function mayAccessAutomation(doc: Pick<StoredAutomation, 'gbac'>, caller: Caller, mode: 'read' | 'write'): boolean {
  if (caller.roles.includes('admin') || caller.id === 'system') return true;
  const write = Array.isArray(doc.gbac?.write) ? doc.gbac.write : [];
  const read = Array.isArray(doc.gbac?.read) ? doc.gbac.read : [];
  const groups = mode === 'write' ? write : read.length === 0 && write.length === 0 ? [] : [...read, ...write];
  return groups.length === 0 || groups.some((g) => caller.groups.includes(g));
}

/**
 * Throws 403 GROUP_ACCESS_DENIED unless the caller may read (or change) the automation; named by its
 * name only to a caller who may read it (by its id otherwise, the key of its routes).
 */
export function assertAutomationAccess(doc: StoredAutomation, caller: Caller, mode: 'read' | 'write'): void {
  if (mayAccessAutomation(doc, caller, mode)) return;
  const named =
    mode === 'write' && mayAccessAutomation(doc, caller, 'read') ? `Automation "${doc.name}"` : `Automation with id "${doc._id}"`;
  throw new AppError('GROUP_ACCESS_DENIED', `${named} is not shared with any group of "${caller.username}" for ${mode}`);
}

/** The store filter of the automations a caller may read (see {@link mayAccessAutomation}); nothing for admins. */
export function automationVisibilityFilter(caller: Caller): Record<string, unknown> | undefined {
  if (caller.roles.includes('admin') || caller.id === 'system') return undefined;
  return {
    $or: [
      { gbac: { $exists: false } },
      { 'gbac.read': { $size: 0 }, 'gbac.write': { $size: 0 } },
      { 'gbac.read': { $in: [...caller.groups] } },
      { 'gbac.write': { $in: [...caller.groups] } },
    ],
  };
}

/** Every group id an automation's `gbac` names (to check that they exist). */
export function gbacGroupIds(doc: Pick<StoredAutomation, 'gbac'>): string[] {
  return [...new Set([...(doc.gbac?.write ?? []), ...(doc.gbac?.read ?? [])])];
}

function invalid(member: string, message: string): AppError {
  return new AppError('VALIDATION_FAILED', `${member} ${message}`, { details: [{ member, message: `${member} ${message}` }] });
}

function groupIds(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((g): g is string => typeof g === 'string'))
    throw invalid(where, 'must be an array of group ids');
  return [...value];
}

/**
 * The automation to store from a submitted one, stamped by `caller` at `now` (epoch ms). An import
 * (`keepId`) keeps the submitted `_id`, `created` and `createdBy`. Throws 400 VALIDATION_FAILED.
 */
export function toAutomationRecord(
  input: Record<string, unknown>,
  caller: Caller,
  now: number,
  keepId: boolean,
  member = 'body.automation',
): StoredAutomation {
  if (typeof input.name === 'string') checkPrintableName(input.name, `${member}.name`);
  if (keepId) checkNotReservedKey(input._id, `${member}._id`);
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (name === '') throw invalid(`${member}.name`, 'must be a non-empty name: an automation needs one');
  // a malformed gbac is refused, never replaced by none (which would open the automation to everyone)
  if (input.gbac !== undefined && input.gbac !== null && !isRecord(input.gbac))
    throw invalid(`${member}.gbac`, 'must be an object { read: [group ids], write: [group ids] }');
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
    gbac: { write: groupIds(gbac.write, `${member}.gbac.write`), read: groupIds(gbac.read, `${member}.gbac.read`) },
    created: keepId && typeof input.created === 'string' ? input.created : t,
    createdBy: keepId && typeof input.createdBy === 'string' ? input.createdBy : caller.username,
    lastUpdated: t,
    lastUpdatedBy: caller.username,
  };
}

/**
 * The automation `existing` becomes with `changes` (PATCH): the members given replace theirs, the
 * others stay; stamped by `caller` at `now` (epoch ms). Checked as {@link toAutomationRecord} checks
 * a new one (a non-empty name, gbac lists of group ids); `gbac` replaces the gbac whole, a list it
 * leaves out being empty, as on creation. `componentName` and `componentId` name one workflow (the
 * trigger starter takes the id first): a change of one alone sets the other to null, so that the
 * automation runs the workflow the change names. Throws 400 VALIDATION_FAILED naming `member.<name>`.
 */
export function toUpdatedAutomation(
  existing: StoredAutomation,
  changes: UpdateAutomationBody,
  caller: Caller,
  now: number,
  member = 'body',
): StoredAutomation {
  const next: StoredAutomation = { ...existing };
  if (changes.name !== undefined) {
    checkPrintableName(changes.name, `${member}.name`);
    const name = changes.name.trim();
    if (name === '') throw invalid(`${member}.name`, 'must be a non-empty name: an automation needs one');
    next.name = name;
  }
  if (changes.description !== undefined) next.description = changes.description;
  if (changes.componentType !== undefined) next.componentType = changes.componentType;
  if (changes.componentName !== undefined) {
    next.componentName = changes.componentName;
    if (changes.componentId === undefined && changes.componentName !== existing.componentName) next.componentId = null;
  }
  if (changes.componentId !== undefined) {
    next.componentId = changes.componentId;
    if (changes.componentName === undefined && changes.componentId !== existing.componentId) next.componentName = null;
  }
  if (changes.gbac !== undefined) {
    // a malformed gbac is refused, never replaced by none (which would open the automation to everyone)
    const gbac: unknown = changes.gbac;
    if (!isRecord(gbac)) throw invalid(`${member}.gbac`, 'must be an object { read: [group ids], write: [group ids] }');
    next.gbac = { write: groupIds(gbac.write, `${member}.gbac.write`), read: groupIds(gbac.read, `${member}.gbac.read`) };
  }
  next.lastUpdated = new Date(now).toISOString();
  next.lastUpdatedBy = caller.username;
  return next;
}

/** A catalog automation's `repeatInterval`: a count and a unit (`1 hour`, `2 weeks`, `3months`). */
const REPEAT_INTERVAL = /^\s*\d+\s*(second|minute|hour|day|week|month)s?\s*$/i;

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
  if (typeof item.name === 'string') checkPrintableName(item.name, 'name');
  checkNotReservedKey(item._id, '_id');
  const name = nameOf(item);
  if (name === '') throw new AppError('VALIDATION_FAILED', 'an exported automation needs a non-empty name');
  const repeat: unknown = item.repeatInterval;
  if (repeat !== undefined && repeat !== null && repeat !== '' && (typeof repeat !== 'string' || !REPEAT_INTERVAL.test(repeat)))
    throw invalid(
      'repeatInterval',
      `must be a count and a unit, for example "2 weeks" (units: second, minute, hour, day, week, month); ${JSON.stringify(repeat)} is not`,
    );
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
