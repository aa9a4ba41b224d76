/**
 * The parts of the job lists that keep pages flat in history: visibility tokens that say what
 * canSeeJob says, the count that stops at its limit, the tokens given to jobs stored before them,
 * the count of a job tree on its root, and the retired indexes dropped at start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Caller } from '@nap/contracts';
import { createEmbeddedStore, type Doc, type EmbeddedStore } from '@nap/store';
import { callerVisibility, canSeeJob, jobVisibleTo, visibilityFilter } from '../src/domain/job-model';
import type { JobRecord } from '../src/domain/job-model';
import { jobSort } from '../src/domain/job-page';
import { RETIRED_INDEXES, WORKFLOW_COLLECTIONS, ensureCollections } from '../src/store/collections';
import { JobRepository } from '../src/store/job-repository';

const GROUPS = ['g1', 'g2', 'g3'];
const USERS = [
  { id: 'u1', username: 'ann' },
  { id: 'u2', username: 'ben' },
  { id: 'u3', username: 'cy' },
];

function job(i: number): JobRecord {
  const starter = USERS[i % USERS.length] as { id: string; username: string };
  const owner = USERS[(i >> 2) % USERS.length] as { id: string; username: string };
  return {
    _id: `job-${String(i).padStart(4, '0')}`,
    name: `wf-${i % 4}`,
    status: i % 3 === 0 ? 'error' : 'complete',
    groups: GROUPS.filter((_, g) => (i >> g) % 2 === 1),
    runAs: { ...starter, roles: ['operations'], groups: [] },
    metrics: { owner: owner.username, start_time: 1_000 + i },
  } as unknown as JobRecord;
}

function callers(): Caller[] {
  const out: Caller[] = [];
  for (const user of USERS)
    for (let mask = 0; mask < 8; mask++)
      out.push({ ...user, roles: ['operations'], groups: GROUPS.filter((_, g) => (mask >> g) % 2 === 1) });
  out.push({ id: 'root', username: 'root', roles: ['admin'], groups: [] });
  return out;
}

describe('visibility tokens', () => {
  it('let a caller see exactly the jobs canSeeJob lets it see', () => {
    for (let i = 0; i < 64; i++) {
      const stored = job(i);
      const tokens = jobVisibleTo(stored);
      for (const caller of callers()) {
        const filter = visibilityFilter(caller);
        const byTokens = filter === undefined || callerVisibility(caller).some((t) => tokens.includes(t));
        expect({ job: stored._id, caller, visible: byTokens }).toEqual({ job: stored._id, caller, visible: canSeeJob(stored, caller) });
      }
    }
  });
});

describe('the jobs repository', () => {
  let root: string;
  let store: EmbeddedStore;
  let jobs: JobRepository;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'nap-job-pages-'));
    store = createEmbeddedStore({ path: join(root, 'workflow') });
    await ensureCollections(store);
    jobs = new JobRepository(store.collection<JobRecord>('jobs'));
  });

  afterEach(async () => {
    await store.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('counts matches up to the count limit, says when it stopped, and gives the keyset token of the next page', async () => {
    await store
      .collection('jobs')
      .insertMany(Array.from({ length: 40 }, (_, i) => ({ ...job(i), visibleTo: jobVisibleTo(job(i)) })) as unknown as Doc[]);
    const sort = jobSort('metrics.start_time', -1);
    const capped = await jobs.page({ filter: { status: { $eq: 'complete' } }, sort, skip: 0, limit: 5, countLimit: 10 });
    expect(capped).toMatchObject({ total: 10, totalExact: false, hasMore: true });
    expect(capped.items.map((j) => j._id)).toEqual(['job-0038', 'job-0037', 'job-0035', 'job-0034', 'job-0032']);
    expect(typeof capped.nextAfter).toBe('string');
    const exact = await jobs.page({ filter: { status: { $eq: 'error' } }, sort, skip: 10, limit: 5, countLimit: 100 });
    expect(exact).toMatchObject({ total: 14, totalExact: true, hasMore: false, nextAfter: null });
    expect(exact.items.map((j) => j._id)).toEqual(['job-0009', 'job-0006', 'job-0003', 'job-0000']);
    // a projected page still makes its token from the job's sort values
    const projected = await jobs.page({ filter: {}, sort: jobSort('name', 1), skip: 0, limit: 3, countLimit: 100, projection: { _id: 1 } });
    expect(projected.items).toEqual([{ _id: 'job-0000' }, { _id: 'job-0004' }, { _id: 'job-0008' }]);
    expect(JSON.parse(Buffer.from(projected.nextAfter as string, 'base64url').toString('utf8'))).toMatchObject({
      v: ['wf-0', 1_008],
      id: 'job-0008',
    });
  });

  it("counts a tree's jobs on its root within the limit, answering the total when refused (0 before any, null without the root)", async () => {
    await store.collection('jobs').insertMany([{ _id: 'root' }, { _id: 'fresh' }]);
    expect(await jobs.countTreeJobs('root', 3, 5)).toEqual({ counted: true });
    expect(await jobs.countTreeJobs('root', 2, 5)).toEqual({ counted: true });
    expect(await jobs.countTreeJobs('root', 1, 5)).toEqual({ counted: false, total: 5 });
    // more than the limit at once: refused without a write, the root's total as it is
    expect(await jobs.countTreeJobs('fresh', 6, 5)).toEqual({ counted: false, total: 0 });
    expect(await jobs.countTreeJobs('gone', 1, 5)).toEqual({ counted: false, total: null });
    expect(await jobs.countTreeJobs('gone', 6, 5)).toEqual({ counted: false, total: null });
    expect(await store.collection('jobs').find({}, { sort: { _id: 1 } })).toEqual([{ _id: 'fresh' }, { _id: 'root', treeJobs: 5 }]);
  });

  it('gives jobs stored before visibleTo existed their tokens, once', async () => {
    await store.collection('jobs').insertMany(Array.from({ length: 30 }, (_, i) => job(i)) as unknown as Doc[]);
    expect(await jobs.backfillVisibleTo(jobVisibleTo, 7)).toBe(30);
    expect(await jobs.backfillVisibleTo(jobVisibleTo, 7)).toBe(0);
    for (const stored of await store.collection<JobRecord>('jobs').find({})) expect(stored.visibleTo).toEqual(jobVisibleTo(stored));
  });
});

describe('ensureCollections', () => {
  it('creates the declared job indexes and drops the ones they replace', async () => {
    const root = mkdtempSync(join(tmpdir(), 'nap-job-indexes-'));
    const store = createEmbeddedStore({ path: join(root, 'workflow') });
    try {
      await store
        .collection('jobs')
        .createIndexes([{ keys: { status: 1, 'metrics.start_time': -1 } }, { keys: { groups: 1 } }, { keys: { other: 1 } }]);
      await ensureCollections(store);
      const names = (await store.collection('jobs').listIndexes()).map((i) => i.name);
      for (const retired of RETIRED_INDEXES.jobs ?? []) expect(names).not.toContain(retired);
      expect(names).toContain('other_1');
      expect(names).toHaveLength(WORKFLOW_COLLECTIONS.jobs.length + 1);
    } finally {
      await store.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
