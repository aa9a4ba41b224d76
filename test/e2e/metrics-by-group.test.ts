import type { JobDocument } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { greetWorkflow, waitForJob } from '../support/automation';

/**
 * The job and task metrics answer a caller who is not an admin only about what they may see: the
 * workflows shared with their groups (or with nobody in particular), summed over the jobs they may
 * see. An admin sees every workflow and every job.
 */

let platform: TestPlatform;
let admin: string;
let alice: string;
let teamA: string;
let teamB: string;

async function group(name: string): Promise<string> {
  const res = await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name } } });
  const id = (res.body as { data: { _id: string } }).data._id;
  await platform.http('PUT', `/user-management/groups/${id}/roles`, { token: admin, body: { roles: ['operations'] } });
  return id;
}

async function workflow(name: string, groups: string[]): Promise<void> {
  const res = await platform.http('POST', '/automation-studio/automations', {
    token: admin,
    body: { automation: greetWorkflow(name, { groups }) },
  });
  expect(res.status).toBe(200);
}

async function run(name: string, groups: string[]): Promise<void> {
  const res = await platform.http('POST', '/operations-manager/jobs/start', {
    token: admin,
    body: { workflow: name, options: { type: 'automation', groups, description: 'metrics by group', variables: { who: 'metrics' } } },
  });
  expect(res.status).toBe(200);
  const job = await waitForJob(platform, admin, (res.body as { data: JobDocument }).data._id);
  expect(job.status).toBe('complete');
}

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
  teamA = await group('metrics-team-a');
  teamB = await group('metrics-team-b');
  await platform.http('POST', '/user-management/accounts', {
    token: admin,
    body: { account: { username: 'metrics-alice', password: 'metrics-alice-pw', groups: [teamA] } },
  });
  alice = await platform.login('metrics-alice', 'metrics-alice-pw');
  await workflow('metrics-a', [teamA]);
  await workflow('metrics-b', [teamB]);
  await workflow('metrics-open', []);
  // jobs without groups are anyone's to see: only the workflow's groups keep metrics-b from alice
  await run('metrics-a', []);
  await run('metrics-a', []);
  await run('metrics-b', []);
  // a job of a workflow alice sees, shared with another group: left out of her figures
  await run('metrics-open', [teamB]);
  await run('metrics-open', []);
}, 90_000);

afterAll(async () => {
  await platform.stop();
});

type Row = { workflow: string; jobsTotal?: number; taskId?: string; metrics?: { runs: number } };

async function metrics(route: string, token: string): Promise<{ results: Row[]; total: number }> {
  const res = await platform.http('GET', route, { token });
  expect(res.status).toBe(200);
  return res.body as { results: Row[]; total: number };
}

it('answers a caller who is not an admin only about the workflows and jobs they may see', async () => {
  const jobs = await metrics('/workflow_engine/jobs/metrics', alice);
  expect(jobs.results.map((r) => [r.workflow, r.jobsTotal])).toEqual([
    ['metrics-a', 2],
    ['metrics-open', 1],
  ]);
  expect(jobs.total).toBe(2);
  const tasks = await metrics('/workflow_engine/tasks/metrics', alice);
  expect(tasks.results.map((r) => [r.workflow, r.taskId, r.metrics?.runs])).toEqual([
    ['metrics-a', 'a1', 2],
    ['metrics-open', 'a1', 1],
  ]);
  expect(tasks.total).toBe(2);
  // asking for another group's workflow by name finds nothing
  expect((await metrics('/workflow_engine/jobs/metrics?equals[workflow]=metrics-b', alice)).total).toBe(0);
});

it('answers an admin about every workflow and job', async () => {
  const jobs = await metrics('/workflow_engine/jobs/metrics', admin);
  expect(jobs.results.map((r) => [r.workflow, r.jobsTotal])).toEqual([
    ['metrics-a', 2],
    ['metrics-b', 1],
    ['metrics-open', 2],
  ]);
  const tasks = await metrics('/workflow_engine/tasks/metrics', admin);
  expect(tasks.results.map((r) => [r.workflow, r.metrics?.runs])).toEqual([
    ['metrics-a', 2],
    ['metrics-b', 1],
    ['metrics-open', 2],
  ]);
});

it('keeps the figures of a deleted workflow from a caller who is not an admin', async () => {
  const listed = await platform.http('GET', '/automation-studio/workflows?equals[name]=metrics-a', { token: admin });
  const id = (listed.body as { items: { _id: string }[] }).items[0]?._id;
  expect((await platform.http('DELETE', `/automation-studio/automations/${id}`, { token: admin })).status).toBe(200);
  expect((await metrics('/workflow_engine/jobs/metrics', alice)).results.map((r) => r.workflow)).toEqual(['metrics-open']);
  expect((await metrics('/workflow_engine/jobs/metrics', admin)).results.map((r) => r.workflow)).toContain('metrics-a');
});
