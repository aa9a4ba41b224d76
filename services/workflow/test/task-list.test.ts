/**
 * `GET /operations-manager/tasks` over a long history: a manual task waiting in a job started
 * before the 2,000 most recent ones is still in the work queue (the console's query, which
 * requires running/paused jobs, and a query naming the job), read a batch of jobs at a time; a
 * query that does not name its jobs searches the documented window and says so (`bounded`).
 * Old finished jobs go straight into the store, as an HTTP history of thousands would take minutes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Caller } from '@nap/contracts';
import { getOperation, validateRequest, validateResponse } from '@nap/contracts';
import type { HandlerContext } from '@nap/bus';
import { createEmbeddedStore, listDocuments } from '@nap/store';
import type { Collection, Doc, EmbeddedStore, Filter, FindOptions } from '@nap/store';
import qs from 'qs';
import type { WorkflowContext } from '../src/context';
import { buildJobQuery } from '../src/domain/job-query';
import { jobVisibleTo } from '../src/domain/job-model';
import type { JobRecord } from '../src/domain/job-model';
import { TASK_BATCH_JOBS, TASK_SCAN_JOBS, flattenTasks, taskJobScope } from '../src/domain/job-tasks';
import { getTasks } from '../src/handlers/get-tasks';
import { ensureCollections } from '../src/store/collections';
import { JobRepository } from '../src/store/job-repository';

/** The console's work queue (console/src/api/work-queue.ts): manual tasks running in running or paused jobs. */
const WAITING = JSON.stringify({
  and: [
    { equals: { status: 'running' } },
    { in: { 'job.status': 'running,paused' } },
    { or: [{ equals: { type: 'manual' } }, { in: { name: 'ViewData,ViewDiff' } }] },
  ],
});

const ADMIN: Caller = { id: 'u-admin', username: 'admin', roles: ['admin'], groups: [] };
const OPERATOR: Caller = { id: 'u-carol', username: 'carol', roles: ['operations'], groups: ['g-ops'] };
const BASE = 1_700_000_000_000;
/** Running jobs, each with a manual task waiting: more than a batch (the queue spans batches), fewer than a page. */
const RUNNING = 300;
/** Finished jobs started after all of them: more than the window of a query that names no jobs. */
const FINISHED = TASK_SCAN_JOBS + 100;

function jobId(n: number): string {
  return `${(BASE / 1000 + n).toString(16)}${n.toString(16).padStart(16, '0')}`;
}

function makeJob(n: number, status: string, tasks: Record<string, unknown>, groups: string[] = []): JobRecord {
  const job = {
    _id: jobId(n),
    name: status === 'complete' ? `wf-${n % 10}` : 'change-window',
    description: `job ${n}`,
    type: 'automation',
    status,
    groups,
    created_by: 'admin',
    runAs: { id: 'u-admin', username: 'admin', roles: ['admin'], groups },
    metrics: { owner: 'admin', start_time: BASE + n * 1000, ...(status === 'complete' ? { end_time: BASE + n * 1000 + 500 } : {}) },
    tasks: {
      workflow_start: { name: 'workflow_start', status: 'complete' },
      ...tasks,
      workflow_end: { name: 'workflow_end', status: status === 'complete' ? 'complete' : 'incomplete' },
    },
    transitions: {},
    variables: {},
    error: [],
    ancestors: [],
  } as unknown as JobRecord;
  job.visibleTo = jobVisibleTo(job);
  return job;
}

function manual(n: number, summary: string): Record<string, unknown> {
  return {
    approve: {
      name: 'ViewData',
      type: 'manual',
      app: 'WorkFlowEngine',
      summary,
      status: 'running',
      metrics: { start_time: BASE + n * 1000 + 10 },
    },
  };
}

/** The paused job of a long change window, started before everything else, visible to everyone. */
const OLD_PAUSED = makeJob(0, 'paused', manual(0, 'Approve the change window'));
/** A running job as old, only for group g-net (the operator is not in it). */
const OLD_HIDDEN = makeJob(1, 'running', manual(1, 'Approve the core change'), ['g-net']);

function history(): JobRecord[] {
  const jobs = [OLD_PAUSED, OLD_HIDDEN];
  for (let i = 0; i < RUNNING; i++) jobs.push(makeJob(10 + i, 'running', manual(10 + i, `Approve ${i}`)));
  for (let i = 0; i < FINISHED; i++) {
    const n = 10 + RUNNING + i;
    // a finished job's manual task that never ran: it matches type=manual but waits for nobody
    jobs.push(
      makeJob(n, 'complete', {
        query: {
          name: 'query',
          type: 'automatic',
          app: 'WorkFlowEngine',
          status: 'complete',
          metrics: { start_time: BASE + n * 1000 + 1 },
        },
        review: { name: 'ViewData', type: 'manual', app: 'WorkFlowEngine', summary: 'Review', status: 'incomplete' },
      }),
    );
  }
  return jobs;
}

interface TaskItem {
  _id: string;
  summary?: string;
  job: { _id: string; status: string };
}
interface TaskPage {
  message: string;
  data: TaskItem[];
  metadata: {
    total: number;
    currentPageSize: number;
    searchedJobs: number;
    bounded: boolean;
    hints: string[];
    nextPageSkip: number | null;
  };
}

describe('the task list over a long history', () => {
  let root: string;
  let store: EmbeddedStore;
  /** The limits of the `find`s the handler sent to the jobs collection. */
  const reads: { filter: Filter; limit: number | undefined }[] = [];

  async function tasks(query: string, caller: Caller = ADMIN): Promise<TaskPage> {
    const collection = store.collection<JobRecord>('jobs');
    const recording = new Proxy(collection, {
      get(target, prop, receiver) {
        if (prop === 'find')
          return (filter: Filter, options: FindOptions = {}) => {
            reads.push({ filter, limit: options.limit });
            return target.find(filter, options);
          };
        return Reflect.get(target, prop, receiver) as unknown;
      },
    }) as Collection<JobRecord>;
    const svc = { jobs: new JobRepository(recording) } as unknown as WorkflowContext;
    const op = getOperation('workflow.getTasks');
    const parts = { query: qs.parse(query) as Record<string, unknown> };
    expect(validateRequest(op, parts)).toEqual([]);
    reads.length = 0;
    const ctx = { caller, requestId: 'task-list-test', deadline: Date.now() + 60_000 } as unknown as HandlerContext;
    const body = await getTasks(svc)({ params: {}, query: parts.query, body: undefined } as never, ctx);
    expect(validateResponse(op, body)).toEqual([]);
    return body as unknown as TaskPage;
  }

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'nap-task-list-'));
    store = createEmbeddedStore({ path: join(root, 'workflow') });
    await ensureCollections(store);
    await store.collection('jobs').insertMany(history() as unknown as Doc[]);
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('has the old paused job outside the window of the most recent jobs', async () => {
    const newest = await store
      .collection('jobs')
      .find({}, { sort: { 'metrics.start_time': -1, _id: -1 }, limit: TASK_SCAN_JOBS, projection: { _id: 1 } });
    expect(newest.map((j) => j._id)).not.toContain(OLD_PAUSED._id);
  });

  it('lists a manual task waiting in a job older than the 2,000 most recent in the console’s work queue, reading a batch at a time', async () => {
    const page = await tasks(`q=${encodeURIComponent(WAITING)}&limit=500`);
    const ids = page.data.map((t) => t._id);
    expect(ids).toContain(`${OLD_PAUSED._id}:approve`);
    expect(ids).toContain(`${OLD_HIDDEN._id}:approve`);
    expect(page.metadata).toMatchObject({
      total: RUNNING + 2,
      currentPageSize: RUNNING + 2,
      bounded: false,
      searchedJobs: RUNNING + 2,
      hints: [],
    });
    // the running and paused jobs only, through the status index, never more than a batch per read
    expect(reads.length).toBeGreaterThan(1);
    for (const read of reads) expect(read.limit).toBeLessThanOrEqual(TASK_BATCH_JOBS);
    expect(JSON.stringify(reads[0]?.filter)).toContain('"status":{"$in":["running","paused"]}');
  });

  it('pages through the whole queue with skip: every waiting task once, in the order of the whole list', async () => {
    const seen: string[] = [];
    for (let skip = 0; ; skip += 150) {
      const page = await tasks(`in[job.status]=running,paused&equals[status]=running&equals[type]=manual&limit=150&skip=${skip}`);
      expect(page.metadata.total).toBe(RUNNING + 2);
      seen.push(...page.data.map((t) => t._id));
      if (page.metadata.nextPageSkip === null) break;
    }
    // the same query over every job in memory, as the list was computed before batches
    const all = await store.collection('jobs').find({});
    const query = buildJobQuery({ in: { 'job.status': 'running,paused' }, equals: { status: 'running', type: 'manual' }, limit: 500 });
    const expected = listDocuments(flattenTasks(all), { ...query, limit: 10_000 }).items.map((t) => t._id);
    expect(seen).toEqual(expected);
  });

  it('applies the caller’s visibility to the jobs it reads', async () => {
    const page = await tasks(`q=${encodeURIComponent(WAITING)}&limit=500`, OPERATOR);
    const ids = page.data.map((t) => t._id);
    expect(ids).toContain(`${OLD_PAUSED._id}:approve`);
    expect(ids).not.toContain(`${OLD_HIDDEN._id}:approve`);
    expect(page.metadata).toMatchObject({ total: RUNNING + 1, bounded: false });
  });

  it('finds the tasks of an old job named by id, or narrowed to its workflow, without a window', async () => {
    const byId = await tasks(`equals[job._id]=${OLD_PAUSED._id}`);
    expect(byId.data.map((t) => t.summary)).toEqual(['Approve the change window']);
    expect(byId.metadata).toMatchObject({ total: 1, searchedJobs: 1, bounded: false });
    // job.name narrows the jobs read (the name index): fewer than the window match, so the answer is whole
    const byName = await tasks('equals[job.name]=change-window&equals[status]=running&limit=500');
    expect(byName.data.map((t) => t._id)).toContain(`${OLD_PAUSED._id}:approve`);
    expect(byName.metadata).toMatchObject({ total: RUNNING + 2, bounded: false });
  });

  it('searches only the 2,000 most recent jobs for a query that names no jobs, and says so', async () => {
    const page = await tasks('equals[type]=manual&equals[status]=running');
    expect(page.data.map((t) => t._id)).not.toContain(`${OLD_PAUSED._id}:approve`);
    expect(page.metadata).toMatchObject({ total: 0, searchedJobs: TASK_SCAN_JOBS, bounded: true });
    expect(page.metadata.hints).toEqual([expect.stringContaining('2,000 most recently started matching jobs')]);
    expect(page.metadata.hints[0]).toContain('in[job.status]=running,paused');
    // the window plus one job to know it left some out, a batch at a time
    for (const read of reads) expect(read.limit).toBeLessThanOrEqual(TASK_BATCH_JOBS);
    expect(reads.reduce((n, r) => n + (r.limit ?? 0), 0)).toBe(TASK_SCAN_JOBS + 1);
    // a status constraint that includes finished jobs keeps the window too (it would read the history)
    const finished = await tasks('in[job.status]=running,complete&equals[type]=manual');
    expect(finished.metadata).toMatchObject({ searchedJobs: TASK_SCAN_JOBS, bounded: true });
  });
});

describe('taskJobScope', () => {
  const scope = (query: Record<string, unknown>) => taskJobScope(buildJobQuery(query).filter);

  it('turns the required job members of a task query into a job filter, and says when every job may be read', () => {
    expect(scope({ q: WAITING })).toEqual({ filter: { status: { $in: ['running', 'paused'] } }, everyJob: true });
    expect(scope({ equals: { 'job.status': 'paused', status: 'running' } })).toEqual({
      filter: { status: { $eq: 'paused' } },
      everyJob: true,
    });
    expect(scope({ equals: { 'job._id': 'j1' } })).toEqual({ filter: { _id: { $eq: 'j1' } }, everyJob: true });
    expect(scope({ equals: { 'job.name': 'wf' }, 'not-in': { 'job.status': 'complete' } })).toEqual({
      filter: { $and: [{ name: { $eq: 'wf' } }, { status: { $nin: ['complete'] } }] },
      everyJob: false,
    });
    expect(scope({ in: { 'job.status': 'running,error' } }).everyJob).toBe(false);
    expect(scope({ equals: { status: 'running' } })).toEqual({ filter: {}, everyJob: false });
  });

  it('leaves conditions under or and not to the task filter', () => {
    expect(scope({ q: JSON.stringify({ or: [{ equals: { 'job.status': 'running' } }, { equals: { name: 'x' } }] }) })).toEqual({
      filter: {},
      everyJob: false,
    });
    expect(scope({ q: JSON.stringify({ not: { equals: { 'job.status': 'running' } } }) })).toEqual({ filter: {}, everyJob: false });
  });
});
