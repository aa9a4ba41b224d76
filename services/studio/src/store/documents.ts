import { AppError, isAppError } from '@nap/contracts';
import type { ErrorCode } from '@nap/contracts';
import { escapeRegex } from '@nap/store';
import type { Collection, Doc, DuplicateKeyDetails, Filter, ListQuery, Store } from '@nap/store';
import type { StudioCollection } from './collections';

/** How one kind of named document speaks about itself in errors. */
export interface DocumentKind {
  collection: StudioCollection;
  /** `workflow`, `template`, `component group`, `form`, `transformation`. */
  label: string;
  notFound: ErrorCode;
  exists: ErrorCode;
}

export const KINDS = {
  workflow: { collection: 'workflows', label: 'workflow', notFound: 'WORKFLOW_NOT_FOUND', exists: 'WORKFLOW_ALREADY_EXISTS' },
  template: { collection: 'templates', label: 'template', notFound: 'TEMPLATE_NOT_FOUND', exists: 'TEMPLATE_ALREADY_EXISTS' },
  componentGroup: {
    collection: 'componentGroups',
    label: 'component group',
    notFound: 'COMPONENT_GROUP_NOT_FOUND',
    exists: 'COMPONENT_GROUP_ALREADY_EXISTS',
  },
  form: { collection: 'forms', label: 'form', notFound: 'FORM_NOT_FOUND', exists: 'FORM_ALREADY_EXISTS' },
  project: { collection: 'projects', label: 'project', notFound: 'PROJECT_NOT_FOUND', exists: 'PROJECT_ALREADY_EXISTS' },
  transformation: {
    collection: 'transformations',
    label: 'transformation',
    notFound: 'TRANSFORMATION_NOT_FOUND',
    exists: 'TRANSFORMATION_ALREADY_EXISTS',
  },
} as const satisfies Record<string, DocumentKind>;

export type NamedDoc = Doc & { name: string };

/**
 * A repository of named studio documents: plain objects with string ids, unique names. Duplicate
 * keys become the kind's `<DOMAIN>_ALREADY_EXISTS` (409) naming the name or id; a missing document
 * its `<DOMAIN>_NOT_FOUND` (404). Filters are built by the service from validated values only.
 * `T` is the stored document's type: the service writes only documents of that type (checked
 * against their schemas on save), so what it reads back has it.
 */
export class NamedDocuments<T extends NamedDoc> {
  private readonly docs: Collection<T>;

  constructor(
    store: Store,
    readonly kind: DocumentKind,
  ) {
    this.docs = store.collection<T>(kind.collection);
  }

  async insert(doc: T): Promise<T> {
    try {
      return await this.docs.insertOne(doc);
    } catch (err) {
      throw this.translate(err, doc);
    }
  }

  /** Replaces the document with id `doc._id`; 404 when it is gone, 409 when the new name is taken. */
  async replace(doc: T): Promise<T> {
    let matched: number;
    try {
      ({ matchedCount: matched } = await this.docs.replaceOne({ _id: doc._id }, doc));
    } catch (err) {
      throw this.translate(err, doc);
    }
    if (matched === 0) throw this.notFound(doc._id);
    return doc;
  }

  /**
   * Replaces the document `previous` by `doc` only if it is still as `previous` was read (same
   * `lastUpdated`, or `last_updated` for the kinds stamped in snake case, and not being imported):
   * the replaced document, or null when it changed meanwhile (read it again and redo the change).
   * 404 when it is gone, 409 when the new name is taken.
   */
  async replaceUnchanged(doc: T, previous: T, stamp: 'lastUpdated' | 'last_updated' = 'lastUpdated'): Promise<T | null> {
    const read = (previous as Record<string, unknown>)[stamp];
    const filter = { _id: doc._id, [stamp]: read ?? null, importing: null } as Filter;
    let matched: number;
    try {
      ({ matchedCount: matched } = await this.docs.replaceOne(filter, doc));
    } catch (err) {
      throw this.translate(err, doc);
    }
    if (matched > 0) return doc;
    if ((await this.findById(doc._id)) === null) throw this.notFound(doc._id);
    return null;
  }

  async findById(id: string): Promise<T | null> {
    return this.docs.findOne({ _id: id });
  }

  async findByName(name: string): Promise<T | null> {
    return this.docs.findOne({ name: { $eq: name } });
  }

  /**
   * The document with id `id` as JSON text (what a bus answer carries), with its members `members`
   * decoded beside it: for an answer that passes the document on without reading the rest of it.
   */
  async findJsonById<K extends keyof T & string>(id: string, members: readonly K[]): Promise<{ json: string; doc: Pick<T, K> } | null> {
    return this.docs.findOneJson({ _id: id }, members);
  }

  /** {@link findJsonById} by name. */
  async findJsonByName<K extends keyof T & string>(name: string, members: readonly K[]): Promise<{ json: string; doc: Pick<T, K> } | null> {
    return this.docs.findOneJson({ name: { $eq: name } }, members);
  }

  /** The document with this id; 404 otherwise. */
  async get(id: string): Promise<T> {
    const doc = await this.findById(id);
    if (doc === null) throw this.notFound(id);
    return doc;
  }

  /** The document with this id or, failing that, this name. */
  async findByIdOrName(idOrName: string): Promise<T | null> {
    return (await this.findById(idOrName)) ?? (await this.findByName(idOrName));
  }

  /** The document with this id or, failing that, this name; 404 otherwise. */
  async getByIdOrName(idOrName: string): Promise<T> {
    const doc = await this.findByIdOrName(idOrName);
    if (doc === null) throw this.notFound(idOrName, 'id or name');
    return doc;
  }

  /**
   * The members of every project named `name` (stored as `@<project id>: <name>`, the naming rule of
   * `@nap/contracts`' project members), id and name only.
   */
  async projectMembers(name: string): Promise<Pick<T, '_id' | 'name'>[]> {
    return this.scan({ name: { $regex: `^@[^:]+: ${escapeRegex(name)}$` } }, ['name']);
  }

  /**
   * Throws the kind's `<DOMAIN>_ALREADY_EXISTS` (409) when a document has this name or, when given,
   * this id: what inserting a document would throw, without writing.
   */
  async assertUnused(name: string, id?: string): Promise<void> {
    if ((await this.findByName(name)) !== null)
      throw new AppError(this.kind.exists, `A ${this.kind.label} named "${name}" already exists; names are unique`);
    if (id !== undefined && (await this.findById(id)) !== null)
      throw new AppError(this.kind.exists, `A ${this.kind.label} with id "${id}" already exists`);
  }

  /** Deletes the document with this id and answers it (what was deleted can then be named); 404 when there is none. */
  async delete(id: string): Promise<T> {
    const gone = await this.docs.findOneAndDelete({ _id: id });
    if (gone === null) throw this.notFound(id);
    return gone;
  }

  /** Deletes the document with this id; nothing when it is already gone. */
  async deleteIfPresent(id: string): Promise<void> {
    await this.docs.deleteOne({ _id: id });
  }

  /** A page of the documents matching `query.filter` and `scope` (access), with the total. */
  async page(query: ListQuery, scope: Filter = {}): Promise<{ items: T[]; total: number; skip: number; limit: number }> {
    const filter =
      Object.keys(scope).length === 0 ? query.filter : Object.keys(query.filter).length === 0 ? scope : { $and: [query.filter, scope] };
    const [items, total] = await Promise.all([
      this.docs.find(filter, { sort: query.sort, skip: query.skip, limit: query.limit }),
      this.docs.countDocuments(filter),
    ]);
    return { items, total, skip: query.skip, limit: query.limit };
  }

  /** Every document matching `filter`, with only the members of `fields` (and `_id`). */
  async scan<K extends keyof T & string>(filter: Filter, fields: readonly K[]): Promise<Pick<T, '_id' | K>[]> {
    return this.docs.find(filter, { projection: Object.fromEntries(fields.map((f) => [f, 1 as const])) });
  }

  notFound(key: string, what = 'id'): AppError {
    return new AppError(this.kind.notFound, `No ${this.kind.label} with ${what} "${key}"`);
  }

  private translate(err: unknown, doc: T): unknown {
    if (!isAppError(err) || err.code !== 'STORE_DUPLICATE_KEY') return err;
    const details = err.details as Partial<DuplicateKeyDetails> | undefined;
    const index = details?.index;
    const fields = Object.keys(details?.key ?? {});
    let message: string;
    if (index === '_id_' || index === '_id') message = `A ${this.kind.label} with id "${doc._id}" already exists`;
    else if (fields.length === 0 || fields.includes('name'))
      message = `A ${this.kind.label} named "${doc.name}" already exists; names are unique`;
    else
      message = `A ${this.kind.label} with ${fields.map((f) => `${f} ${JSON.stringify((doc as Record<string, unknown>)[f])}`).join(', ')} already exists; ${fields.join(', ')} ${fields.length === 1 ? 'is' : 'are'} unique`;
    return new AppError(this.kind.exists, message, { cause: err });
  }
}

/** The unique index of the store that refused a write, under the `<DOMAIN>_ALREADY_EXISTS` a repository translated it to; undefined for any other error. */
export function refusingIndex(err: unknown): string | undefined {
  const cause = isAppError(err) ? err.cause : undefined;
  if (!isAppError(cause) || cause.code !== 'STORE_DUPLICATE_KEY') return undefined;
  const index = (cause.details as Partial<DuplicateKeyDetails> | undefined)?.index;
  return typeof index === 'string' ? index : undefined;
}
