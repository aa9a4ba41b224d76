export * from './types';
export { createStore, type StoreConfig } from './create-store';
export {
  DEFAULT_MIN_FREE_BYTES,
  createEmbeddedStore,
  type EmbeddedStore,
  type EmbeddedStoreOptions,
} from './internal/embedded/embedded-store';
export type { QueryStats } from './internal/embedded/query-exec';
export { createMongoStore } from './internal/mongo/load';
export type { MongoStoreOptions } from './internal/mongo/mongo-store';
export type { DocumentTooLargeDetails, DuplicateKeyDetails, StoreFullDetails } from './internal/errors';
export { MAX_DOCUMENT_BYTES } from './internal/errors';
export {
  DEFAULT_LIST_LIMIT,
  MAX_LIST_LIMIT,
  escapeRegex,
  listDocuments,
  listProjected,
  pageLinks,
  toListQuery,
  type ListFields,
  type ListQuery,
} from './list-query';
export { DeclaredIndexes, type IndexDeclarations } from './declared-indexes';
