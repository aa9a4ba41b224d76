import { onFirstUse } from '@nap/util';
import type { Store } from '../../types';
import type * as MongoStoreModule from './mongo-store';
import type { MongoStoreOptions } from './mongo-store';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (onFirstUse)
const mongoStore = onFirstUse(() => require('./mongo-store') as typeof MongoStoreModule);

/** A MongoStore; its module, and the MongoDB driver with it, load on the first call (a process on the embedded store never loads them). */
export function createMongoStore(options: MongoStoreOptions): Store {
  return mongoStore().createMongoStore(options);
}
