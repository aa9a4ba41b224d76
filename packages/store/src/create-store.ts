import { join } from 'node:path';
import { createEmbeddedStore } from './internal/embedded/embedded-store';
import { createMongoStore } from './internal/mongo/load';
import type { Store } from './types';

/** Where a service keeps its data. */
export interface StoreConfig {
  /** MongoDB connection string (`NAP_MONGO_URL`); when absent the embedded store is used. */
  mongoUrl?: string;
  /** The service's database name (one database per service). */
  dbName: string;
  /** Directory of embedded databases (`NAP_DATA_DIR`); the store lives in `<dataDir>/<dbName>`. */
  dataDir: string;
  /** Free space the disk under an embedded store keeps (`NAP_DATA_MIN_FREE_MB`); see the embedded store's `minFreeBytes`. */
  minFreeBytes?: number;
}

/**
 * The store a service should use: a MongoStore when `mongoUrl` is set, otherwise an EmbeddedStore
 * at `<dataDir>/<dbName>`. Does no I/O for MongoDB until the first call (use `ping()` at start);
 * opens the embedded database at once (`STORE_UNAVAILABLE` if it cannot, `CONFLICT` if this process
 * already has it open).
 */
export function createStore(config: StoreConfig): Store {
  if (config.mongoUrl) return createMongoStore({ url: config.mongoUrl, dbName: config.dbName });
  return createEmbeddedStore({
    path: join(config.dataDir, config.dbName),
    ...(config.minFreeBytes !== undefined ? { minFreeBytes: config.minFreeBytes } : {}),
  });
}
