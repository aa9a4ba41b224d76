import { AppError, hasCode } from '@nap/contracts';
import type { ListQueryOptions } from '@nap/contracts';
import { MAX_LIST_LIMIT, toListQuery } from '@nap/store';
import type { Collection, Store } from '@nap/store';

/** An integration as stored: its connection settings with secrets sealed. */
export interface IntegrationDoc {
  _id: string;
  [key: string]: unknown;
  name: string;
  model: string;
  type: string;
  settings: Record<string, unknown>;
  /** Grows with every change: keys caches of compiled methods and tokens. */
  version: number;
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
}

/** The `integrations` collection, keyed by integration name. */
export class IntegrationRepository {
  private readonly integrations: Collection<IntegrationDoc>;

  constructor(store: Store) {
    this.integrations = store.collection<IntegrationDoc>('integrations');
  }

  /** Stores a new integration; 409 `INTEGRATION_ALREADY_EXISTS` when its name is taken. */
  async insert(doc: IntegrationDoc): Promise<void> {
    try {
      await this.integrations.insertOne(doc);
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY'))
        throw new AppError('INTEGRATION_ALREADY_EXISTS', `An integration "${doc.name}" exists`, { cause: err });
      throw err;
    }
  }

  async replace(doc: IntegrationDoc): Promise<void> {
    await this.integrations.replaceOne({ _id: doc._id }, doc);
  }

  async delete(name: string): Promise<void> {
    await this.integrations.deleteOne({ _id: name });
  }

  /** The integration; 404 `INTEGRATION_NOT_FOUND`. */
  async get(name: string): Promise<IntegrationDoc> {
    const doc = await this.integrations.findOne({ _id: name });
    if (doc === null) throw new AppError('INTEGRATION_NOT_FOUND', `No integration "${name}"`);
    return doc;
  }

  async list(query: ListQueryOptions): Promise<{ results: IntegrationDoc[]; total: number }> {
    const q = toListQuery(query, {
      filter: ['name', 'model', 'type'],
      sort: ['name', 'model', 'created', 'lastUpdated'],
      defaultSort: { name: 1 },
      // every one when no limit is given (ipctl reads this list in one request)
      defaultLimit: MAX_LIST_LIMIT,
    });
    const [results, total] = await Promise.all([
      this.integrations.find(q.filter, { sort: q.sort, skip: q.skip, limit: q.limit }),
      this.integrations.countDocuments(q.filter),
    ]);
    return { results, total };
  }

  /** Names of (at most five) integrations of the model: what keeps it from being replaced or deleted. */
  async usersOf(versionId: string): Promise<string[]> {
    return (await this.integrations.find({ model: versionId }, { projection: { name: 1 }, limit: 5 })).map((u) => u.name);
  }

  /** Name and model of every integration (what a task's app is matched against). */
  async models(): Promise<{ name: string; model: string }[]> {
    return (await this.integrations.find({}, { projection: { name: 1, model: 1, version: 1 } })).map((i) => ({
      name: i.name,
      model: i.model,
    }));
  }

  count(): Promise<number> {
    return this.integrations.countDocuments({});
  }
}
