import type { Collection, Store } from '@nap/store';
import { modelNotFound } from './integration-models';

/**
 * The documents of a model, apart from its record so that listing models and resolving a task's app
 * never read megabytes (the GitLab document is 1.4 MB, twice).
 */
export interface ModelSourceDoc {
  _id: string;
  [key: string]: unknown;
  /** As imported; `GET …/export` answers it. */
  document: Record<string, unknown>;
  /** OpenAPI 3.x (a 2.0 document converted), not dereferenced. */
  openapi: Record<string, unknown>;
}

/** The `integration_model_sources` collection, keyed by the model's versionId. */
export class IntegrationModelSourceRepository {
  private readonly sources: Collection<ModelSourceDoc>;

  constructor(store: Store) {
    this.sources = store.collection<ModelSourceDoc>('integration_model_sources');
  }

  async put(versionId: string, source: Omit<ModelSourceDoc, '_id'>): Promise<void> {
    await this.sources.replaceOne({ _id: versionId }, source, { upsert: true });
  }

  /** The documents of the model; 404 `INTEGRATION_MODEL_NOT_FOUND`. */
  async get(versionId: string): Promise<ModelSourceDoc> {
    const source = await this.sources.findOne({ _id: versionId });
    if (source === null) throw modelNotFound(versionId);
    return source;
  }

  async delete(versionId: string): Promise<void> {
    await this.sources.deleteOne({ _id: versionId });
  }
}
