import { AppError, hasCode } from '@nap/contracts';
import type { ListQueryOptions } from '@nap/contracts';
import { MAX_LIST_LIMIT, toListQuery } from '@nap/store';
import type { Collection, Store } from '@nap/store';

/** An adapter as stored: the document with sealed secrets, its lifecycle state and changelog. */
export interface AdapterDoc {
  _id: string;
  [key: string]: unknown;
  name: string;
  /** The adapter document (`data` of the record), connection settings sealed. */
  data: Record<string, unknown>;
  /** Desired lifecycle: RUNNING after start (the monitor brings it there), STOPPED, DELETED. */
  state: string;
  version: number;
  changelog: { version: string; date: string; changes: string }[];
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
}

/**
 * The query with `id` read as `name`: the original platform's health records call an adapter's name
 * its id, and its clients filter on it (the MCP server finds an adapter by `equals=<name>&equalsField=id`).
 */
function idAsName(query: ListQueryOptions): ListQueryOptions {
  const out = { ...query };
  for (const member of ['equalsField', 'containsField', 'startsWithField', 'sort'] as const) if (out[member] === 'id') out[member] = 'name';
  return out;
}

/** The `adapters` collection, keyed by adapter name; a deleted adapter stays as a tombstone (state DELETED, no settings). */
export class AdapterRepository {
  private readonly adapters: Collection<AdapterDoc>;

  constructor(store: Store) {
    this.adapters = store.collection<AdapterDoc>('adapters');
  }

  /** The document, deleted or not. */
  find(name: string): Promise<AdapterDoc | null> {
    return this.adapters.findOne({ _id: name });
  }

  /** The document, deleted or not; 404 `ADAPTER_NOT_FOUND` when there never was one. */
  async get(name: string): Promise<AdapterDoc> {
    const doc = await this.adapters.findOne({ _id: name });
    if (doc === null) throw new AppError('ADAPTER_NOT_FOUND', `No adapter "${name}"`);
    return doc;
  }

  /** A live adapter's document; 404 `ADAPTER_NOT_FOUND` for unknown and deleted ones. */
  async getLive(name: string): Promise<AdapterDoc> {
    const doc = await this.get(name);
    if (doc.state === 'DELETED') throw new AppError('ADAPTER_NOT_FOUND', `No adapter "${name}" (it was deleted)`);
    return doc;
  }

  /** Stores a new adapter, in place of its tombstone when `overTombstone`; 409 `ADAPTER_ALREADY_EXISTS` when one lives under the name. */
  async create(doc: AdapterDoc, overTombstone: boolean): Promise<void> {
    try {
      if (overTombstone) await this.adapters.replaceOne({ _id: doc.name, state: 'DELETED' }, doc);
      else await this.adapters.insertOne(doc);
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY'))
        throw new AppError('ADAPTER_ALREADY_EXISTS', `An adapter "${doc.name}" exists`, { cause: err });
      throw err;
    }
  }

  /** Sets members of the document found at `version`, noting `entry` in its changelog; the document after. 409 `CONFLICT` when another change came first. */
  async update(
    name: string,
    version: number,
    set: Record<string, unknown>,
    entry: { version: string; date: string; changes: string },
  ): Promise<AdapterDoc> {
    const updated = await this.adapters.findOneAndUpdate(
      { _id: name, version },
      { $set: set, $push: { changelog: entry } },
      { returnDocument: 'after' },
    );
    if (updated === null) throw new AppError('CONFLICT', `Adapter "${name}" changed meanwhile; read it again and repeat the change`);
    return updated;
  }

  /** Replaces the document with its tombstone. */
  async replace(doc: Omit<AdapterDoc, '_id'>): Promise<void> {
    await this.adapters.replaceOne({ _id: doc.name }, doc);
  }

  /** A page of the live adapters. */
  async list(query: ListQueryOptions): Promise<{ results: AdapterDoc[]; total: number }> {
    const q = toListQuery(query, {
      filter: ['name', 'data.model', 'data.properties.type'],
      sort: ['name', 'created', 'lastUpdated'],
      defaultSort: { name: 1 },
      // every one when no limit is given (ipctl reads this list in one request)
      defaultLimit: MAX_LIST_LIMIT,
    });
    const filter = { $and: [q.filter, { state: { $ne: 'DELETED' } }] };
    const [results, total] = await Promise.all([
      this.adapters.find(filter, { sort: q.sort, skip: q.skip, limit: q.limit }),
      this.adapters.countDocuments(filter),
    ]);
    return { results, total };
  }

  /** A page of every adapter, deleted ones too (their health says DELETED), filtered on name and state. */
  async listAll(query: ListQueryOptions): Promise<{ results: AdapterDoc[]; total: number }> {
    const q = toListQuery(idAsName(query), {
      filter: ['name', 'state'],
      sort: ['name'],
      defaultSort: { name: 1 },
      // every one when no limit is given (ipctl reads this list in one request)
      defaultLimit: MAX_LIST_LIMIT,
    });
    const all = await this.adapters.find(q.filter, { sort: q.sort });
    return { results: all.slice(q.skip, q.skip + q.limit), total: all.length };
  }

  /** The live adapters by name. */
  live(): Promise<AdapterDoc[]> {
    return this.adapters.find({ state: { $ne: 'DELETED' } }, { sort: { name: 1 } });
  }

  /** Name and model of every live adapter (what a task's app is matched against). */
  async models(): Promise<{ name: string; model: unknown }[]> {
    const docs = await this.adapters.find({ state: { $ne: 'DELETED' } }, { projection: { name: 1, 'data.model': 1 } });
    return docs.map((d) => ({ name: d.name, model: d.data.model }));
  }

  /** The adapters whose desired state is RUNNING (what a starting service resumes). */
  running(): Promise<AdapterDoc[]> {
    return this.adapters.find({ state: 'RUNNING' });
  }

  /** Records the desired lifecycle state. */
  async setState(name: string, state: 'RUNNING' | 'STOPPED'): Promise<void> {
    await this.adapters.updateOne({ _id: name }, { $set: { state } });
  }

  async setLoggerProps(name: string, loggerProps: Record<string, unknown>): Promise<void> {
    await this.adapters.updateOne({ _id: name }, { $set: { 'data.loggerProps': loggerProps } });
  }
}
