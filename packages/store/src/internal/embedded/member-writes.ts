/**
 * Writes of one document by `_id` that read and write only some of its top-level members (see the
 * members format in `doc-codec`): what a write needs of the document, and the write itself.
 */
import { isPlainObject } from '@nap/util';
import type { Doc, Filter, Projection, Update } from '../../types';
import { cloneValue } from '../clone';
import type { CollectionDef, IndexDef } from './catalog';
import { decodeMembers, encodeChangedMembers, isPlainUpdate, storedMembers, wholeDoc } from './doc-codec';
import { applyUpdate, compileFilter } from './mongo-semantics';
import { docKey } from './query-exec';
import type { WriteTxn } from './write-txn';

/** The top-level member a dotted path starts in; undefined for one that does not name a member plainly. */
function memberOf(path: string): string | undefined {
  const dot = path.indexOf('.');
  const member = dot === -1 ? path : path.slice(0, dot);
  return member === '' || member.startsWith('$') ? undefined : member;
}

/**
 * What a write of one document by `_id` reads and changes of it: `read`, the top-level members its
 * filter, update and projection name, `_id` and those named by `indexes`, the collection's indexes
 * on a member it changes (no other index can change); `changed`, the members its update names.
 * Undefined when the write needs the whole document: a filter with top-level operators (`$or`,
 * `$expr`…), an exclusion projection, an update of `_id`.
 */
function membersOfWrite(
  collection: CollectionDef,
  filter: Filter,
  update: Update,
  projection: Projection | undefined,
): { read: Set<string>; changed: Set<string>; indexes: IndexDef[]; counted: Set<string> | undefined } | undefined {
  const read = new Set<string>(['_id']);
  const changed = new Set<string>();
  for (const key of Object.keys(filter)) {
    const member = memberOf(key);
    if (member === undefined) return undefined;
    read.add(member);
  }
  for (const [op, fields] of Object.entries(update)) {
    if (op === '$setOnInsert' || !isPlainObject(fields)) continue;
    for (const [path, operand] of Object.entries(fields)) {
      const member = memberOf(path);
      if (member === undefined || member === '_id') return undefined;
      changed.add(member);
      if (op === '$rename') {
        const to = typeof operand === 'string' ? memberOf(operand) : undefined;
        if (to === undefined || to === '_id') return undefined;
        changed.add(to);
      }
    }
  }
  for (const [field, how] of Object.entries(projection ?? {})) {
    if (field === '_id') continue;
    const member = how === 1 ? memberOf(field) : undefined;
    if (member === undefined) return undefined;
    read.add(member);
  }
  const indexes: IndexDef[] = [];
  for (const index of collection.indexes) {
    const members = index.fields.map((field) => memberOf(field.path));
    if (members.some((member) => member === undefined)) return undefined;
    if (!members.some((member) => changed.has(member as string))) continue;
    indexes.push(index);
    for (const member of members) read.add(member as string);
  }
  for (const member of changed) read.add(member);
  return { read, changed, indexes, counted: countedMembers(collection, filter, update, projection) };
}

/**
 * The members a write needs only the length of (read without parsing them, see `decodeMembers`):
 * those its filter names only as `{ $size: n }`, that its update replaces whole (`$set` or `$unset`
 * of the member itself) or leaves alone, and that neither its projection nor an index of the
 * collection names. A member left alone keeps its stored text; one replaced gets the update's value.
 */
function countedMembers(
  collection: CollectionDef,
  filter: Filter,
  update: Update,
  projection: Projection | undefined,
): Set<string> | undefined {
  let counted: Set<string> | undefined;
  for (const [path, condition] of Object.entries(filter)) {
    if (!isPlainObject(condition) || memberOf(path) !== path) continue;
    const ops = Object.keys(condition);
    if (ops.length === 1 && ops[0] === '$size' && typeof condition.$size === 'number') (counted ??= new Set()).add(path);
  }
  if (counted === undefined) return undefined;
  const named = counted;
  const drop = (path: string): void => {
    const member = memberOf(path);
    if (member !== undefined) named.delete(member);
  };
  for (const path of Object.keys(filter)) if (!named.has(path)) drop(path);
  for (const [op, fields] of Object.entries(update)) {
    if (!isPlainObject(fields)) continue;
    for (const path of Object.keys(fields)) if ((op !== '$set' && op !== '$unset') || memberOf(path) !== path) drop(path);
  }
  for (const field of Object.keys(projection ?? {})) drop(field);
  for (const index of collection.indexes) for (const field of index.fields) drop(field.path);
  return named.size > 0 ? named : undefined;
}

/** What {@link writeByMembers} did: whether the filter matched and the update changed the document, and the document's members it read, before and after. */
export interface MemberWrite {
  matched: boolean;
  modified: boolean;
  before?: Doc;
  after?: Doc;
}

/**
 * An update of the document whose `_id` the filter names that reads only the top-level members
 * the write needs (see {@link membersOfWrite}) and writes the others back as the text they were
 * stored as, not decoded and encoded again (a job's outbox cleared, one task changed in a 20 KB
 * job). Undefined when it cannot (a write that needs the whole document,
 * no such document, a document stored before the members format): the caller takes the general
 * path then. The members it answers are this write's own objects.
 */
export function writeByMembers(
  txn: WriteTxn,
  target: CollectionDef,
  /** The `_id` the filter names. */
  id: string,
  filter: Filter,
  update: Update,
  options: { projection?: Projection; keepBefore?: boolean } = {},
): MemberWrite | undefined {
  const members = membersOfWrite(target, filter, update, options.projection);
  if (members === undefined) return undefined;
  const text = txn.dbs.docs.get(docKey(target, id));
  const stored = text === undefined ? undefined : storedMembers(text);
  if (stored === undefined) return undefined;
  const doc = decodeMembers(stored, members.read, members.counted);
  // every member the filter names was read: it matches the part as it matches the whole
  if (!compileFilter(filter)(doc)) return { matched: false, modified: false };
  const before = options.keepBefore === true ? cloneValue(doc) : undefined;
  const entries = txn.snapshotOf(target, doc, members.indexes);
  if (!applyUpdate(doc, update, filter, false)) return { matched: true, modified: false, ...(before ? { before } : {}), after: doc };
  const encoded = encodeChangedMembers(stored, doc, members.changed, isPlainUpdate(update));
  if (encoded === undefined) txn.replace(target, entries, wholeDoc(stored, doc, members.changed));
  else txn.replaceEncoded(target, entries, doc, encoded);
  return { matched: true, modified: true, ...(before ? { before } : {}), after: doc };
}
