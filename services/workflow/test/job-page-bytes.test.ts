import type { JobDocument, JobList, JobPage } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually, task, workflowDocument } from '@nap/testing';
import { jobsWithinBytes, listValueBytes, outOfLineBytes } from '../src/domain/job-values';
import type { EngineHarness } from './support/harness';
import { startEngineHarness } from './support/harness';

/**
 * Jobs that copy one large value into many outputs are many times larger read back than stored:
 * a page of them (GET /operations-manager/jobs, getJobList) is cut at the bytes a list reads back
 * at once (4 × NAP_JOB_MAX_VALUE_BYTES) instead of failing (a page too large to encode was a 500
 * for everyone who lists jobs), the task list reads them back a part of a batch at a time, and
 * the task metrics do not read the values at all.
 */

/** Values above 1 KiB leave the job document; a list reads back 16 KiB of them at once. */
const LIMITS = { inlineValueBytes: 1024, maxValueBytes: 4096 };
const BUDGET = listValueBytes({ inlineBytes: LIMITS.inlineValueBytes, maxBytes: LIMITS.maxValueBytes });
const COPIES = 5;

/** Copies `big` (3 KB) into `copy0`…`copy4`: each copy is a task output and a variable, one stored value. */
const copies = workflowDocument(
  'copies-of-big',
  Object.fromEntries(Array.from({ length: COPIES }, (_, i) => [`c${i}`, task('newVariable', { name: `copy${i}`, value: '$var.job.big' })])),
  [
    ['workflow_start', 'c0'],
    ...Array.from({ length: COPIES - 1 }, (_, i): [string, string] => [`c${i}`, `c${i + 1}`]),
    [`c${COPIES - 1}`, 'workflow_end'],
  ],
);
const big = (n: number) => String(n).repeat(3000);

describe('the engine repository', () => {
  let h: EngineHarness;

  beforeAll(async () => {
    h = await startEngineHarness(LIMITS);
  });

  afterAll(async () => {
    await h.stop();
  });

  it('measures a stored job by the values it refers to, each reference counted', async () => {
    const started = await h.run(copies, { big: big(1) });
    await h.waitFor(started._id, ['complete']);
    const stored = await h.engine.deps.jobs.findOne({ _id: started._id });
    // the variable, its copies and the output of each task: 11 references of 3002 bytes
    expect(outOfLineBytes(stored ?? {})).toBe((1 + COPIES * 2) * 3002);
    expect(outOfLineBytes(stored ?? {})).toBeGreaterThan(BUDGET);
    expect(jobsWithinBytes([stored ?? {}, stored ?? {}, stored ?? {}], BUDGET)).toBe(1);
    // the page stops before the job that would pass the budget, and holds one at least
    expect(jobsWithinBytes([{}, {}, stored ?? {}, {}], BUDGET)).toBe(2);
    expect(jobsWithinBytes([stored ?? {}, {}], BUDGET)).toBe(1);
    expect(jobsWithinBytes([{}, {}, {}], BUDGET)).toBe(3);
  });

  it('reads the task list back a part of a batch at a time, each within the budget but for a single job', async () => {
    for (let n = 2; n <= 3; n += 1) await h.waitFor((await h.run(copies, { big: big(n) }))._id, ['complete']);
    const sizes: number[] = [];
    for await (const batch of h.engine.repository.newestFirst({}, { tasks: 1, variables: 1 }, { batch: 250 })) sizes.push(batch.length);
    expect(sizes).toEqual([1, 1, 1]);
  });
});

describe('through the HTTP interface', () => {
  let platform: TestPlatform;
  let admin: string;
  const ids: string[] = [];

  const call = (method: string, route: string, body?: unknown) => platform.http(method, route, { token: admin, ...(body ? { body } : {}) });

  beforeAll(async () => {
    platform = await startTestPlatform({ workflow: LIMITS });
    admin = await platform.login();
    expect((await call('POST', '/automation-studio/automations', { automation: copies })).status).toBe(200);
    for (let n = 1; n <= 3; n += 1) {
      const res = await call('POST', '/workflow_engine/startJobWithOptions/copies-of-big', { options: { variables: { big: big(n) } } });
      expect(res.status).toBe(200);
      ids.push((res.body as JobDocument)._id);
    }
    await eventually('the three jobs complete', async () => {
      const res = await call('GET', '/operations-manager/jobs?equals[status]=complete&include=_id');
      return (res.body as JobPage).total === 3;
    });
  }, 90_000);

  afterAll(async () => {
    await platform?.stop();
  });

  it('cuts a page of jobs at the bytes a list carries, says so, and pages on by skip and by keyset without a gap', async () => {
    const bySkip: string[] = [];
    let skip: number | undefined = 0;
    while (skip !== undefined) {
      const res = await call('GET', `/operations-manager/jobs?limit=10&skip=${skip}`);
      expect(res.status).toBe(200);
      const page = res.body as JobPage;
      expect(page).toMatchObject({ total: 3, currentPageSize: 1, limit: 10 });
      if (bySkip.length < 2) expect(page.hints).toEqual([expect.stringContaining('the page holds 1 of the 10 jobs asked for')]);
      bySkip.push(...page.items.map((j) => String(j._id)));
      skip = page.nextPageSkip;
    }
    expect([...bySkip].sort()).toEqual([...ids].sort());

    const byKey: string[] = [];
    let after: string | null = '';
    while (after !== null) {
      const page = (await call('GET', `/operations-manager/jobs?limit=10&after=${after}`)).body as JobPage & {
        nextPageAfter: string | null;
      };
      byKey.push(...page.items.map((j) => String(j._id)));
      after = page.nextPageAfter;
    }
    expect(byKey).toEqual(bySkip);
    // the jobs whole, values and all
    const first = (await call('GET', '/operations-manager/jobs?limit=1')).body as JobPage;
    expect((first.items[0]?.variables as Record<string, unknown>).copy4).toBe(big(3));
    // without the large members a page holds every job
    const slim = (await call('GET', '/operations-manager/jobs?limit=10&exclude=tasks,variables')).body as JobPage;
    expect(slim).toMatchObject({ currentPageSize: 3, hints: [] });
  });

  it('cuts getJobList the same way, with limit saying how many it holds', async () => {
    const res = await call('POST', '/workflow_engine/getJobList/all', { options: { page: { skip: 0, limit: 10 } } });
    expect(res.status).toBe(200);
    const list = res.body as JobList & { nextPageAfter: string | null };
    expect(list).toMatchObject({ skip: 0, limit: 1, total: 3 });
    expect(list.results).toHaveLength(1);
    expect(list.nextPageAfter).toEqual(expect.any(String));
  });

  it('lists every task and counts them in the metrics', async () => {
    const tasks = await call('GET', `/operations-manager/tasks?limit=100&in[job._id]=${ids.join(',')}`);
    expect(tasks.status).toBe(200);
    expect((tasks.body as { metadata: { total: number } }).metadata.total).toBe(3 * COPIES);
    const metrics = await call('GET', '/workflow_engine/tasks/metrics?equals=copies-of-big&equalsField=workflow');
    expect(metrics.status).toBe(200);
    const rows = (metrics.body as { results: { taskId: string; metrics: { runs: number; success: number } }[] }).results;
    expect(rows.map((r) => [r.taskId, r.metrics.runs, r.metrics.success])).toEqual(
      Array.from({ length: COPIES }, (_, i) => [`c${i}`, 3, 3]),
    );
  });
});
