import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Caller } from '@nap/contracts';
import { createEmbeddedStore } from '@nap/store';
import type { Collection, Doc, EmbeddedStore, Store } from '@nap/store';
import { createLogger } from '@nap/telemetry';
import { linearWorkflow } from '@nap/testing';
import type { JobRecord } from '../../src/domain/job-model';
import { newJobRecord } from '../../src/domain/job-model';
import { JobArchiver } from '../../src/engine/job-archiver';
import { ArchiveBatchRepository } from '../../src/store/archive-batch-repository';
import { ArchiveChunkRepository } from '../../src/store/archive-chunk-repository';
import { ensureCollections } from '../../src/store/collections';
import { JobArchiveRepository } from '../../src/store/job-archive-repository';
import { JobRepository } from '../../src/store/job-repository';
import { JobValueRepository } from '../../src/store/job-value-repository';
import type { JobValueRecord } from '../../src/store/job-value-repository';
import type { CrashSwitch } from './crash';

export const ALICE: Caller = { id: 'u-alice', username: 'alice', roles: ['operations'], groups: ['g-net'] };

/** Values larger than this go to job_values in these tests (so archives must put them back). */
export const INLINE_BYTES = 1024;

/**
 * A job that ended at `endTime` in `status`, as the engine leaves it once its events are out (no
 * lease, empty outbox): both tasks finished, `big` (a value kept out of line) among its variables
 * when asked. With `parent`, a child job of it.
 */
export function endedJob(input: {
  id: string;
  workflow?: string;
  status?: string;
  endTime: number;
  parent?: JobRecord;
  big?: boolean;
  groups?: string[];
}): JobRecord {
  const start = input.endTime - 1_000;
  const job = newJobRecord({
    id: input.id,
    workflow: linearWorkflow(input.workflow ?? 'archived-flow'),
    variables: input.big ? { big: 'x'.repeat(INLINE_BYTES * 2) } : {},
    caller: ALICE,
    serverId: 'engine-gone',
    now: start,
    ...(input.groups ? { groups: input.groups } : {}),
    ...(input.parent
      ? {
          parent: {
            link: { job: input.parent._id, task: 'a1', iteration: 0 },
            ancestors: input.parent.ancestors,
            groups: input.parent.groups,
          },
        }
      : {}),
  });
  const status = input.status ?? 'complete';
  const active = status === 'running' || status === 'paused';
  for (const [id, task] of Object.entries(job.tasks)) {
    task.status = active && id !== 'workflow_start' ? 'incomplete' : 'complete';
    if (task.status === 'complete')
      task.metrics = {
        start_time: start,
        end_time: input.endTime,
        run_time: 1_000,
        finish_state: status === 'error' ? 'error' : 'success',
      };
  }
  job.status = status;
  if (!active) {
    job.metrics = { ...job.metrics, end_time: input.endTime, run_time: 1_000, finish_state: status };
    delete job.lease;
  }
  return job;
}

/** The archiving parts over one embedded store, optionally through a crash switch. */
export interface ArchiveParts {
  jobs: JobRepository;
  archives: JobArchiveRepository;
  batches: ArchiveBatchRepository;
  chunks: ArchiveChunkRepository;
  archiver: JobArchiver;
}

/** A store whose collections go through `crash` (every call hangs once it tripped). */
function crashing(store: Store, crash: CrashSwitch): Store {
  return new Proxy(store, {
    get: (target, prop, receiver) => {
      if (prop === 'collection') return <T extends Doc>(name: string): Collection<T> => crash.wrap(target.collection<T>(name));
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}

/** The archiving parts of one replica `serverId`; its claims lapse after `leaseMs`. */
export function archiveParts(
  store: Store,
  serverId: string,
  options: { leaseMs?: number; batchJobs?: number; crash?: CrashSwitch } = {},
): ArchiveParts {
  const seen = options.crash ? crashing(store, options.crash) : store;
  const jobs = new JobRepository(
    seen.collection<JobRecord>('jobs'),
    new JobValueRepository(seen.collection<JobValueRecord>('job_values'), { inlineBytes: INLINE_BYTES, maxBytes: 1024 * 1024 }),
  );
  const archives = new JobArchiveRepository(seen);
  const batches = new ArchiveBatchRepository(seen);
  const chunks = new ArchiveChunkRepository(seen);
  const leaseMs = options.leaseMs ?? 60_000;
  const archiver = new JobArchiver({
    jobs,
    archives,
    batches,
    chunks,
    serverId,
    timing: { leaseMs, tickMs: Math.max(10, Math.floor(leaseMs / 3)) },
    batchJobs: options.batchJobs ?? 10,
    log: createLogger({ name: serverId, level: process.env.NAP_LOG_LEVEL ?? 'silent' }),
  });
  return { jobs, archives, batches, chunks, archiver };
}

/** A fresh embedded store with the workflow collections; `close()` removes it. */
export async function freshStore(): Promise<{ store: EmbeddedStore; close(): Promise<void> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-archive-'));
  const store = createEmbeddedStore({ path: path.join(dir, 'db') });
  await ensureCollections(store);
  return {
    store,
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The jobs of an archive's file, in file order: every part in order, decompressed, one job a line. */
export async function archivedJobs(chunks: ArchiveChunkRepository, archiveId: string): Promise<Record<string, unknown>[]> {
  const parts: Uint8Array[] = [];
  let after: string | undefined;
  for (;;) {
    const [part] = await chunks.after(archiveId, after, 1);
    if (part === undefined) break;
    parts.push(part.data);
    after = part._id;
  }
  if (parts.length === 0) return [];
  const text = gunzipSync(Buffer.concat(parts)).toString('utf8');
  return text === ''
    ? []
    : text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
}
