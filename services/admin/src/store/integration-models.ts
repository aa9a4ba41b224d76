import { AppError, hasCode } from '@nap/contracts';
import type { ListQueryOptions } from '@nap/contracts';
import { MAX_LIST_LIMIT, toListQuery } from '@nap/store';
import type { Collection, Store } from '@nap/store';

/** An integration model as stored: the view's members, the document as imported and its 3.x form. */
export interface ModelDoc {
  _id: string;
  [key: string]: unknown;
  versionId: string;
  title: string;
  version: string;
  description?: string;
  specification: string;
  app: string;
  servers: { url: string }[];
  defaultBasePath: string;
  methodCount: number;
  warnings: { path: string; message: string }[];
  /** The first server of the document as settings: what an integration's `server` defaults to. */
  server: { protocol?: 'http' | 'https'; host?: string; port?: number; base_path: string };
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
}

/** The `integration_models` collection, keyed by versionId (`<info.title>:<info.version>`). */
export class IntegrationModelRepository {
  private readonly models: Collection<ModelDoc>;

  constructor(store: Store) {
    this.models = store.collection<ModelDoc>('integration_models');
  }

  /** Refuses a versionId that names a model already: 409 `INTEGRATION_MODEL_ALREADY_EXISTS`. */
  async assertFree(versionId: string): Promise<void> {
    if ((await this.models.countDocuments({ _id: versionId })) > 0) throw modelExists(versionId);
  }

  /** Stores a new model; 409 `INTEGRATION_MODEL_ALREADY_EXISTS` when its versionId is taken. */
  async insert(doc: ModelDoc): Promise<void> {
    try {
      await this.models.insertOne(doc);
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY')) throw modelExists(doc._id, err);
      throw err;
    }
  }

  async replace(doc: ModelDoc): Promise<void> {
    await this.models.replaceOne({ _id: doc._id }, doc);
  }

  async delete(versionId: string): Promise<void> {
    await this.models.deleteOne({ _id: versionId });
  }

  /** The model; 404 `INTEGRATION_MODEL_NOT_FOUND`. */
  async get(versionId: string): Promise<ModelDoc> {
    const doc = await this.models.findOne({ _id: versionId });
    if (doc === null) throw modelNotFound(versionId);
    return doc;
  }

  find(versionId: string): Promise<ModelDoc | null> {
    return this.models.findOne({ _id: versionId });
  }

  async list(query: ListQueryOptions): Promise<{ results: ModelDoc[]; total: number }> {
    const q = toListQuery(query, {
      filter: ['versionId', 'title', 'version', 'app'],
      sort: ['versionId', 'title', 'version', 'created', 'lastUpdated'],
      defaultSort: { versionId: 1 },
      // every one when no limit is given (ipctl reads this list in one request)
      defaultLimit: MAX_LIST_LIMIT,
    });
    const [results, total] = await Promise.all([
      this.models.find(q.filter, { sort: q.sort, skip: q.skip, limit: q.limit }),
      this.models.countDocuments(q.filter),
    ]);
    return { results, total };
  }

  /** The versionId and task app of every model (what a task's app is matched against). */
  async apps(): Promise<{ versionId: string; app: string }[]> {
    return (await this.models.find({}, { projection: { versionId: 1, app: 1 } })).map((m) => ({ versionId: m.versionId, app: m.app }));
  }
}

export function modelNotFound(versionId: string): AppError {
  return new AppError('INTEGRATION_MODEL_NOT_FOUND', `No integration model "${versionId}"`);
}

function modelExists(versionId: string, cause?: unknown): AppError {
  return new AppError(
    'INTEGRATION_MODEL_ALREADY_EXISTS',
    `An integration model "${versionId}" exists; a new version (info.version) is a new model`,
    cause === undefined ? {} : { cause },
  );
}
