import type { IndexSpec, Store } from '@nap/store';

/** Collection names of the mop service. */
export const COLLECTIONS = {
  templates: 'command_templates',
  analyticTemplates: 'analytic_templates',
  runs: 'template_runs',
  reattempts: 'reattempts',
} as const;

/** Collections of the mop service and their indexes, created at start. */
export const MOP_INDEXES: Record<string, IndexSpec[]> = {
  [COLLECTIONS.templates]: [{ keys: { name: 1 }, unique: true }],
  [COLLECTIONS.analyticTemplates]: [{ keys: { name: 1 }, unique: true }],
  [COLLECTIONS.runs]: [{ keys: { started: -1 } }, { keys: { template: 1, started: -1 } }, { keys: { devices: 1 } }],
  [COLLECTIONS.reattempts]: [{ keys: { jobId: 1, attemptID: 1 }, unique: true }, { keys: { status: 1, reattemptAt: 1 } }],
};

export async function ensureCollections(store: Store): Promise<void> {
  for (const [name, indexes] of Object.entries(MOP_INDEXES)) {
    await store.collection(name).createIndexes(indexes.map((spec) => ({ ...spec, keys: { ...spec.keys } })));
  }
}
