import { AppError } from '@nap/contracts';
import type { WorkflowDocument } from '@nap/contracts';
import { task, workflowDocument } from '@nap/testing';
import type { EngineHarness } from './support/harness';
import { startEngineHarness } from './support/harness';
import { MAX_CHILD_JOB_DEPTH } from '../src/engine/child-jobs';
import type { JobRecord } from '../src/domain/job-model';

/**
 * A childJob task whose child is refused (no access to its workflow, a workflow that does not
 * exist, a job tree at its limits of depth and size) lists no child job that was never created:
 * its `childJobs` names the children that exist, and the refusal is the task's error.
 */

/** Descendant jobs a root job may have here (`maxJobsPerTree`), above the nesting test's ten. */
const TREE_LIMIT = 20;

let h: EngineHarness;

beforeAll(async () => {
  h = await startEngineHarness({ maxJobsPerTree: TREE_LIMIT });
  // the studio refuses the workflow "guarded" to every caller here
  const get = h.workflows.get.bind(h.workflows);
  h.workflows.get = (name: string): WorkflowDocument | undefined => {
    if (name === 'guarded') throw new AppError('GROUP_ACCESS_DENIED', 'Workflow "guarded" is shared with groups the caller is not in');
    return get(name);
  };
});

afterAll(async () => {
  await h.stop();
});

function parent(name: string, child: string, items: unknown[]): WorkflowDocument {
  return workflowDocument(
    name,
    {
      cj: task(
        'childJob',
        { task: '', workflow: child, variables: {}, data_array: items, transformation: '', loopType: 'parallel' },
        { job_details: null },
        { type: 'operation' },
      ),
    },
    [
      ['workflow_start', 'cj'],
      ['cj', 'workflow_end'],
    ],
  );
}

it.each([
  ['refused', 'guarded', 'GROUP_ACCESS_DENIED'],
  ['missing', 'no-such-workflow', 'WORKFLOW_NOT_FOUND'],
])('records no child job for a %s child workflow, and the refusal as the task error', async (_what, child, code) => {
  const job = await h.waitFor((await h.run(parent(`parent-of-${child}`, child, [{ n: 1 }, { n: 2 }])))._id, [
    'complete',
    'error',
    'canceled',
  ]);
  expect(job.status).toBe('error');
  const cj = job.tasks.cj;
  expect(cj?.childJobs).toEqual([]);
  expect(JSON.stringify(cj?.variables?.error ?? job.error)).toContain(code);
  expect(await h.store.collection('jobs').countDocuments({ 'parent.job': job._id })).toBe(0);
});

it('stops a workflow that runs itself at the nesting limit: no job deeper than it, the refusal as the deepest task error', async () => {
  // without the limit, jobs without end (and with a data_array of two items, twice as many at each level)
  const root = await h.run(parent('runs-itself', 'runs-itself', [{ n: 1 }]));
  const job = await h.waitFor(root._id, ['complete', 'error', 'canceled'], 60_000);
  expect(job.status).toBe('error');
  const jobs = h.store.collection('jobs');
  const deepest = await jobs.findOne({ ancestors: { $size: MAX_CHILD_JOB_DEPTH } });
  expect(deepest).not.toBeNull();
  expect(await jobs.countDocuments({ ancestors: { $size: MAX_CHILD_JOB_DEPTH + 1 } })).toBe(0);
  const refused = await h.waitFor(String(deepest?._id), ['complete', 'error', 'canceled']);
  // the refusal carries its code first, and names the depth and the limit
  expect(refused.tasks.cj?.variables?.error).toBe(
    `JOB_TREE_LIMIT_EXCEEDED: Child job of workflow "runs-itself" would be nested ${MAX_CHILD_JOB_DEPTH + 1} levels deep, more than the limit of ${MAX_CHILD_JOB_DEPTH} levels (fixed, not a setting): does a workflow run itself without end?`,
  );
  expect(refused.error).toEqual([expect.objectContaining({ task: 'cj' })]);
});

it('refuses a data_array with more items than a job tree may hold, creating no child', async () => {
  const items = Array.from({ length: TREE_LIMIT + 1 }, (_, n) => ({ n }));
  const job = await h.waitFor((await h.run(parent('too-many-children', 'too-many-children-child', items)))._id, [
    'complete',
    'error',
    'canceled',
  ]);
  expect(job.status).toBe('error');
  expect(job.tasks.cj?.variables?.error).toBe(
    `JOB_TREE_LIMIT_EXCEEDED: Child jobs of workflow "too-many-children-child" would be ${TREE_LIMIT + 1}, one per item of data_array, more than the limit of ${TREE_LIMIT} jobs per job tree (NAP_MAX_JOBS_PER_TREE); NAP_MAX_JOBS_PER_TREE of the workflow service raises the limit`,
  );
  expect(await h.store.collection('jobs').countDocuments({ 'parent.job': job._id })).toBe(0);
});

it('stops a job tree that fans out at every level at its size limit, counted across its levels', async () => {
  // a workflow that runs itself twice: without the limit 2 + 4 + … + 2^10 jobs before the nesting limit
  const root = await h.run(parent('fans-out', 'fans-out', [{ n: 1 }, { n: 2 }]));
  const job = await h.waitFor(root._id, ['complete', 'error', 'canceled'], 60_000);
  expect(job.status).toBe('error');
  const jobs = h.store.collection<JobRecord>('jobs');
  // every childJob task counts its two children at once: the tree fills up exactly
  expect(await jobs.countDocuments({ 'ancestors.0': root._id })).toBe(TREE_LIMIT);
  expect((await jobs.findOne({ _id: root._id }))?.treeJobs).toBe(TREE_LIMIT);
  const refused = await jobs.find({ 'ancestors.0': root._id, 'tasks.cj.childJobs': { $size: 0 } });
  expect(refused.length).toBeGreaterThan(0);
  for (const r of refused)
    expect(r.tasks.cj?.variables?.error).toBe(
      `JOB_TREE_LIMIT_EXCEEDED: Child jobs of workflow "fans-out" were refused: 2 more would pass the limit of ${TREE_LIMIT} jobs per job tree (NAP_MAX_JOBS_PER_TREE); the tree of root job "${root._id}" has ${TREE_LIMIT} descendant jobs already. NAP_MAX_JOBS_PER_TREE of the workflow service raises the limit`,
    );
  // no active job is left behind
  expect(await jobs.countDocuments({ 'ancestors.0': root._id, status: { $in: ['running', 'paused'] } })).toBe(0);
});
