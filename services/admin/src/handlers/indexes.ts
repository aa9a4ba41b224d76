import type { HandlerMap } from '@nap/bus';
import type { IndexAdministration } from '../domain/indexes';

/** `/indexes*`. */
export function indexHandlers(indexes: IndexAdministration): HandlerMap<'admin'> {
  return {
    getIndexes: async () => {
      const results = await indexes.declared();
      return { results, total: results.length };
    },
    checkIndexes: async (input) => indexes.status(input.params.collection),
    createIndexes: async (input) => indexes.create(input.params.collection),
  };
}
