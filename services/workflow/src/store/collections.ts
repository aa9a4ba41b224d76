import type { IndexSpec, Store } from '@nap/store';

/**
 * Collections of the workflow service and their indexes, created at start.
 *
 * The job indexes serve every filter and sort of the job lists (`GET /operations-manager/jobs`,
 * `POST /workflow_engine/getJobList/:status`, `GET /operations-manager/tasks`; docs/indexes.md
 * says which index serves which query, and a test explains each): each ends with the start time
 * and `_id`, the tie-breakers of every job sort (`domain/job-page.ts`), so a page and its keyset
 * continuation are read in index order whatever the history's size. `visibleTo` leads the indexes
 * of callers who see only some jobs. The others serve the engine's lease scans (the lease holder)
 * and child-job lookups. `engines` holds one small heartbeat document per engine process (its
 * leases). Trigger route names are unique; schedules are found by due time. `engine_settings` holds
 * the platform-wide worker switches, `engine_replicas` what each replica's workers apply (for the
 * workers' status). `job_values` holds the task outputs and variables too large to stay in their job
 * document (`domain/job-values`), by job. Jobs ended before a moment are found by end time
 * (archiving). `job_archives` holds the archives, `job_archive_batches` each batch's phase, members
 * and metric sums, `job_archive_chunks` the compressed file in parts (in `_id` order),
 * `job_retention` the retention's due time and claim, `job_sealing` where the sealing of the jobs an
 * earlier release stored with their secrets in clear is, its claim, and the jobs it waits for to
 * finish (`stored-job-sealing`).
 */
export const WORKFLOW_COLLECTIONS = {
  jobs: [
    { keys: { 'metrics.start_time': 1, _id: 1 } },
    { keys: { status: 1, 'metrics.start_time': 1, _id: 1 } },
    { keys: { name: 1, 'metrics.start_time': 1, _id: 1 } },
    { keys: { 'metrics.owner': 1, 'metrics.start_time': 1, _id: 1 } },
    { keys: { created_by: 1, 'metrics.start_time': 1, _id: 1 } },
    { keys: { 'metrics.run_time': 1, 'metrics.start_time': 1, _id: 1 } },
    { keys: { visibleTo: 1, 'metrics.start_time': 1, _id: 1 } },
    { keys: { visibleTo: 1, status: 1, 'metrics.start_time': 1, _id: 1 } },
    // the jobs a trigger started
    { keys: { 'trigger._id': 1, 'metrics.start_time': 1, _id: 1 } },
    { keys: { lease: 1 } },
    { keys: { 'metrics.server_id': 1, status: 1 } },
    { keys: { 'parent.job': 1 } },
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
  job_sealing: [],
} as const satisfies Record<string, readonly IndexSpec[]>;

/**
 * Indexes that earlier releases declared and that the ones above replace: dropped at start, as an
 * index nobody reads still costs every write.
 */
export const RETIRED_INDEXES: Readonly<Record<string, readonly string[]>> = {
  jobs: [
    'metrics.start_time_-1',
    'status_1_metrics.start_time_-1',
    'name_1_metrics.start_time_-1',
    'metrics.owner_1_metrics.start_time_-1',
    'groups_1',
  ],
};

export async function ensureCollections(store: Store): Promise<void> {
  for (const [name, indexes] of Object.entries(WORKFLOW_COLLECTIONS)) {
    const collection = store.collection(name);
    await collection.createIndexes(indexes.map((spec) => ({ ...spec, keys: { ...spec.keys } })));
    const retired = RETIRED_INDEXES[name] ?? [];
    if (retired.length === 0) continue;
    const present = new Set((await collection.listIndexes()).map((index) => index.name));
    for (const index of retired) if (present.has(index)) await collection.dropIndex(index);
  }
}
