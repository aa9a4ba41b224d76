import type { IndexSpec, Store } from '@nap/store';

/**
 * Collections of the workflow service and their indexes, created at start. The job indexes serve
 * the filtered pages of `GET /operations-manager/jobs` (status, name or owner, newest first), the
 * engine's lease scans (the lease holder) and child-job lookups. `engines` holds one small
 * heartbeat document per engine process (its leases). Trigger route names are unique; schedules are
 * found by due time. `engine_settings` holds the platform-wide worker switches, `engine_replicas`
 * what each replica's workers apply (for the workers' status). `job_values` holds the task outputs and
 * variables too large to stay in their job document (`domain/job-values`), by job. Jobs ended
 * before a moment are found by end time (archiving). `job_archives` holds the archives,
 * `job_archive_batches` each batch's phase, members and metric sums, `job_archive_chunks` the
 * compressed file in parts (in `_id` order), `job_retention` the retention's due time and claim.
 */
export const WORKFLOW_COLLECTIONS = {
  jobs: [
    { keys: { 'metrics.start_time': -1 } },
    { keys: { status: 1, 'metrics.start_time': -1 } },
    { keys: { name: 1, 'metrics.start_time': -1 } },
    { keys: { 'metrics.owner': 1, 'metrics.start_time': -1 } },
    { keys: { lease: 1 } },
    { keys: { 'metrics.server_id': 1, status: 1 } },
    { keys: { 'parent.job': 1 } },
    { keys: { groups: 1 } },
    { keys: { 'metrics.end_time': 1 } },
  ],
  automations: [{ keys: { name: 1 }, unique: true }],
  catalog_automations: [{ keys: { name: 1 }, unique: true }],
  triggers: [
    { keys: { routeName: 1 }, unique: true, sparse: true },
    { keys: { type: 1, enabled: 1, nextRunAt: 1 } },
    { keys: { actionId: 1 } },
    { keys: { name: 1 } },
  ],
  job_values: [{ keys: { job: 1 } }],
  engines: [],
  engine_settings: [],
  engine_replicas: [],
  job_archives: [{ keys: { createdAt: -1 } }, { keys: { state: 1, nextRunAt: 1 } }],
  job_archive_batches: [{ keys: { archive: 1 } }, { keys: { phase: 1 } }],
  job_archive_chunks: [{ keys: { archive: 1 } }],
  job_retention: [],
} as const satisfies Record<string, readonly IndexSpec[]>;

export async function ensureCollections(store: Store): Promise<void> {
  for (const [name, indexes] of Object.entries(WORKFLOW_COLLECTIONS)) {
    await store.collection(name).createIndexes(indexes.map((spec) => ({ ...spec, keys: { ...spec.keys } })));
  }
}
