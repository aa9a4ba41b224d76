/**
 * docs/indexes.md names, per route and query, the index each job list is read from: this test
 * runs every row's request through the route's handler over a store of 3,000 jobs, records the
 * queries the handler sent to the `jobs` collection, and asks the store to explain each. A row
 * fails when its page is read from another index, sorted in memory, reads more jobs than it returns
 * (rows marked `page`), or counts its total from another index or from documents. With
 * NAP_MONGO_URL set, the same queries are explained by MongoDB too.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Caller } from '@nap/contracts';
import { getOperation, validateRequest } from '@nap/contracts';
import type { HandlerContext } from '@nap/bus';
import { createEmbeddedStore, createMongoStore } from '@nap/store';
import type { Collection, CountOptions, Doc, EmbeddedStore, Filter, FindOptions, Store } from '@nap/store';
import { MongoClient } from 'mongodb';
import qs from 'qs';
import type { WorkflowContext } from '../src/context';
import { jobVisibleTo } from '../src/domain/job-model';
import type { JobRecord } from '../src/domain/job-model';
import { getJobList } from '../src/handlers/get-job-list';
import { getJobs } from '../src/handlers/get-jobs';
import { getTasks } from '../src/handlers/get-tasks';
import { ensureCollections } from '../src/store/collections';
import { JobRepository } from '../src/store/job-repository';

interface Row {
  route: string;
  query: string;
  caller: 'admin' | 'operator';
  page: string;
  reads: 'page' | 'filtered';
  total: string;
}

const DOC = join(__dirname, '../../../docs/indexes.md');

function cell(text: string): string {
  return text.trim().replace(/^`|`$/g, '').replace(/\\(.)/g, '$1');
}

/** The rows of the table between the `indexes:begin` and `indexes:end` markers. */
function readTable(): Row[] {
  const text = readFileSync(DOC, 'utf8');
  const body = text.slice(text.indexOf('<!-- indexes:begin -->'), text.indexOf('<!-- indexes:end -->'));
  return body
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2)
    .map((line) => {
      const [route, query, caller, page, reads, total] = line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map(cell);
      return { route, query, caller, page, reads, total } as Row;
    });
}

const ADMIN: Caller = { id: 'u-admin', username: 'admin', roles: ['admin'], groups: [] };
/** A user of one group: sees the jobs without groups and those of g-ops, two in three. */
const OPERATOR: Caller = { id: 'u-carol', username: 'carol', roles: ['operations'], groups: ['g-ops'] };
const BASE = 1_700_000_000_000;
const JOBS = 3_000;
const STATUSES = ['complete', 'complete', 'complete', 'error', 'canceled', 'running', 'paused'];
const OWNERS = ['alice', 'bob', 'admin'];

function seedJob(i: number): JobRecord {
  const status = STATUSES[i % STATUSES.length] as string;
  const owner = OWNERS[i % OWNERS.length] as string;
  const groups = i % 3 === 0 ? [] : i % 3 === 1 ? ['g-ops'] : ['g-net'];
  const job = {
    _id: `${(BASE / 1000 + i).toString(16)}${i.toString(16).padStart(16, '0')}`,
    name: `wf-${i % 20}`,
    description: `job ${i}`,
    type: 'automation',
    status,
    groups,
    created_by: owner,
    runAs: { id: `u-${owner}`, username: owner, roles: ['operations'], groups },
    metrics: {
      owner,
      start_time: BASE + i * 1000,
      ...(status === 'running' || status === 'paused' ? {} : { end_time: BASE + i * 1000 + 500, run_time: 500 + (i % 100) }),
    },
    tasks: { a1: { name: 'query', status: 'complete' } },
    transitions: {},
    variables: { n: i },
    error: [],
    ancestors: [],
    // one job in ten was started by one of three triggers
    ...(i % 10 === 0 ? { trigger: { _id: `t-${i % 3}`, name: `trigger ${i % 3}`, type: 'schedule', automationId: 'a-1' } } : {}),
  } as unknown as JobRecord;
  job.visibleTo = jobVisibleTo(job);
  return job;
}

interface Recorded {
  op: 'find' | 'countDocuments';
  filter: Filter;
  options: FindOptions & CountOptions;
}

/** The `jobs` collection, recording the queries read through it. */
function recording(collection: Collection<JobRecord>, calls: Recorded[]): Collection<JobRecord> {
  return new Proxy(collection, {
    get(target, prop, receiver) {
      if (prop === 'find' || prop === 'countDocuments') {
        return (filter: Filter, options: FindOptions & CountOptions = {}) => {
          calls.push({ op: prop, filter, options });
          return prop === 'find' ? target.find(filter, options) : target.countDocuments(filter, options);
        };
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}

function contextOf(caller: Caller): HandlerContext {
  return { caller, requestId: 'index-test', deadline: Date.now() + 60_000 } as unknown as HandlerContext;
}

/** Runs the row's request through its handler; the queries of the last request (the `(next)` page for `after=(next)`). */
async function queriesOf(row: Row, store: Store): Promise<Recorded[]> {
  const calls: Recorded[] = [];
  const svc = { jobs: new JobRepository(recording(store.collection<JobRecord>('jobs'), calls)) } as unknown as WorkflowContext;
  const ctx = contextOf(row.caller === 'admin' ? ADMIN : OPERATOR);
  const [method, path] = row.route.split(' ') as [string, string];
  if (method === 'GET') {
    const id = path === '/operations-manager/jobs' ? 'workflow.getJobs' : 'workflow.getTasks';
    const run = async (text: string) => {
      const parts = { query: qs.parse(text) as Record<string, unknown> };
      const problems = validateRequest(getOperation(id), parts);
      if (problems.length > 0) throw new Error(`${row.query}: ${JSON.stringify(problems)}`);
      const input = { params: {}, query: parts.query, body: undefined } as never;
      return (id === 'workflow.getJobs' ? await getJobs(svc)(input, ctx) : await getTasks(svc)(input, ctx)) as { nextPageAfter?: string };
    };
    const text = row.query === '(none)' ? '' : row.query;
    if (text.includes('after=(next)')) {
      const first = await run(text.replace(/&?after=\(next\)/, ''));
      if (typeof first.nextPageAfter !== 'string') throw new Error(`${row.query}: the first page has no nextPageAfter`);
      calls.length = 0;
      await run(text.replace('(next)', first.nextPageAfter));
    } else {
      await run(text);
    }
    return [...calls];
  }
  const status = path.split('/').pop() as string;
  const body = JSON.parse(row.query) as never;
  await getJobList(svc)({ params: { status }, query: {}, body } as never, ctx);
  return [...calls];
}

const rows = readTable();

describe('docs/indexes.md', () => {
  it('has a row for each job list route and caller', () => {
    expect(rows.length).toBeGreaterThanOrEqual(20);
    const routes = new Set(rows.map((r) => `${r.route.replace(/\/(complete|all|error)$/, '/:status')} ${r.caller}`));
    for (const route of ['GET /operations-manager/jobs', 'POST /workflow_engine/getJobList/:status', 'GET /operations-manager/tasks'])
      for (const caller of ['admin', 'operator']) expect(routes).toContain(`${route} ${caller}`);
  });
});

describe('the indexes of the job lists, as the embedded store explains them', () => {
  let root: string;
  let store: EmbeddedStore;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'nap-job-indexes-'));
    store = createEmbeddedStore({ path: join(root, 'workflow') });
    await ensureCollections(store);
    const jobs = Array.from({ length: JOBS }, (_, i) => seedJob(i));
    await store.collection('jobs').insertMany(jobs as unknown as Doc[]);
  });

  afterAll(async () => {
    await store.close();
    rmSync(root, { recursive: true, force: true });
  });

  it.each(rows.map((r) => [`${r.route} ${r.query} (${r.caller})`, r] as const))('%s', async (_, row) => {
    const calls = await queriesOf(row, store);
    const pages = calls.filter((c) => c.op === 'find' && c.options.sort !== undefined);
    // the task list reads its jobs in batches, each after the last job of the one before (the last may
    // find none: the window's one job more); the job lists read one page
    if (row.route === 'GET /operations-manager/tasks') expect(pages.length).toBeGreaterThanOrEqual(1);
    else expect(pages).toHaveLength(1);
    for (const [i, page] of pages.entries()) {
      const plan = await store.explain('jobs', page.filter, page.options);
      const index = plan.plan === 'index' ? plan.index : plan.plan === 'primary' || plan.plan === 'ids' ? '_id_' : plan.plan;
      const read = `${row.query} (read ${i + 1})`;
      expect({ read, index, sortedByIndex: plan.sortedByIndex }).toEqual({ read, index: row.page, sortedByIndex: true });
      if (i === 0) expect(plan.returned).toBeGreaterThan(0);
      if (row.reads === 'page') expect({ read, docsExamined: plan.docsExamined }).toEqual({ read, docsExamined: plan.returned });
    }

    const counts = calls.filter((c) => c.op === 'countDocuments');
    if (row.total === '—') {
      expect(counts).toHaveLength(0);
      return;
    }
    expect(counts).toHaveLength(1);
    const count = counts[0] as Recorded;
    const counted = await store.explainCount('jobs', count.filter, count.options);
    expect(counted.returned).toBeGreaterThan(0);
    if (row.total === 'size') expect(Object.keys(count.filter)).toHaveLength(0);
    else if (row.total === 'documents') expect(counted.docsExamined).toBeGreaterThan(0);
    else
      expect({ row: row.query, index: counted.index, docsExamined: counted.docsExamined }).toEqual({
        row: row.query,
        index: row.total,
        docsExamined: 0,
      });
  });
});

/** The index names of the stages of a MongoDB plan (IDHACK and EXPRESS stages by `_id` as `_id_`), and whether it sorts in memory. */
function planIndexes(plan: unknown, out = { indexes: new Set<string>(), sorts: false }): { indexes: Set<string>; sorts: boolean } {
  if (Array.isArray(plan)) for (const p of plan) planIndexes(p, out);
  else if (plan !== null && typeof plan === 'object') {
    const node = plan as Record<string, unknown>;
    if (typeof node.indexName === 'string') out.indexes.add(node.indexName);
    if (node.stage === 'IDHACK' || node.stage === 'EXPRESS_IDHACK') out.indexes.add('_id_');
    if (node.stage === 'COLLSCAN') out.indexes.add('COLLSCAN');
    if (node.stage === 'SORT') out.sorts = true;
    for (const [key, value] of Object.entries(node)) if (key !== 'rejectedPlans') planIndexes(value, out);
  }
  return out;
}

const mongoUrl = process.env.NAP_MONGO_URL;
if (mongoUrl === undefined || mongoUrl === '') {
  describe('the indexes of the job lists, as MongoDB explains them — NOT RUN', () => {
    beforeAll(() => {
      const line = '!'.repeat(100);
      console.warn(
        `${line}\n!! MongoDB did NOT explain the queries of docs/indexes.md: only the embedded store did.\n!! Set NAP_MONGO_URL=mongodb://host:27017 to run it.\n${line}`,
      );
    });

    it('records why MongoDB did not explain the queries', () => {
      expect(mongoUrl ?? '').toBe('');
    });
  });
} else {
  describe('the indexes of the job lists, as MongoDB explains them', () => {
    const dbName = `nap_job_indexes_${process.pid}_${Date.now()}`;
    let store: Store;
    let client: MongoClient;

    beforeAll(async () => {
      store = createMongoStore({ url: mongoUrl, dbName });
      client = new MongoClient(mongoUrl);
      await ensureCollections(store);
      await store.collection('jobs').insertMany(Array.from({ length: JOBS }, (_, i) => seedJob(i)) as unknown as Doc[]);
    }, 120_000);

    afterAll(async () => {
      await client.db(dbName).dropDatabase();
      await client.close();
      await store.close();
    });

    it.each(rows.map((r) => [`${r.route} ${r.query} (${r.caller})`, r] as const))('%s', async (_, row) => {
      const calls = await queriesOf(row, store);
      const jobs = client.db(dbName).collection('jobs');
      for (const [i, page] of calls.filter((c) => c.op === 'find' && c.options.sort !== undefined).entries()) {
        const { sort, skip, limit } = page.options;
        const explained = await jobs
          .find(page.filter, { ...(sort ? { sort } : {}), ...(skip ? { skip } : {}), ...(limit ? { limit } : {}) })
          .explain('queryPlanner');
        const found = planIndexes((explained as { queryPlanner?: unknown }).queryPlanner);
        const read = `${row.query} (read ${i + 1})`;
        expect({ read, indexes: [...found.indexes], sorts: found.sorts }).toEqual({ read, indexes: [row.page], sorts: false });
      }
      const count = calls.find((c) => c.op === 'countDocuments');
      if (count === undefined || row.total === 'size' || row.total === 'documents' || row.total === '—') return;
      const pipeline = [{ $match: count.filter }, ...(count.options.limit ? [{ $limit: count.options.limit }] : []), { $count: 'n' }];
      const counted = planIndexes(await jobs.aggregate(pipeline).explain('queryPlanner'));
      expect({ row: row.query, indexes: [...counted.indexes] }).toEqual({ row: row.query, indexes: [row.total] });
    });
  });
}
