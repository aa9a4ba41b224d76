import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { createNatsBus } from '@nap/bus';
import type { JobArchive, JobDocument, JobMetric, TaskMetric } from '@nap/contracts';
import { createClient, loadConfig } from '@nap/runtime';
import type { RunningService } from '@nap/runtime';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { createLogger, createMetrics } from '@nap/telemetry';
import { eventually, finishedJob, startNatsServer, task, workflowDocument } from '@nap/testing';
import { createWorkflowService } from '@nap/workflow';
import { greetWorkflow, waitForJob, waitingTask } from '../support/automation';

/**
 * Jobs kept and archived on purpose, through HTTP: POST /operations-manager/jobs/archive by
 * `before` and `status` (root jobs with their child jobs; running and paused jobs never), the list
 * and the download (gunzipped, one job a line, each as GET /operations-manager/jobs/:id showed it),
 * job and task metrics unchanged by archiving, and the active profile's retention running once per
 * due time with two workflow replicas.
 */

const DAY_MS = 86_400_000;

type Http = TestPlatform['http'];

async function ok<T>(http: Http, token: string, method: string, route: string, body?: unknown, status = 200): Promise<T> {
  const res = await http(method, route, { token, ...(body !== undefined ? { body } : {}) });
  if (res.status !== status) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(res.body).slice(0, 1_000)}`);
  return res.body as T;
}

async function createWorkflow(platform: TestPlatform, token: string, name: string, tasks: Parameters<typeof workflowDocument>[1]) {
  const doc = workflowDocument(name, tasks, [
    ['workflow_start', Object.keys(tasks)[0] as string],
    [Object.keys(tasks)[0] as string, 'workflow_end'],
  ]);
  await ok(platform.http, token, 'POST', '/automation-studio/automations', { automation: doc }, 200);
}

async function start(platform: TestPlatform, token: string, workflow: string, variables: Record<string, unknown> = {}): Promise<string> {
  const job = await ok<JobDocument>(platform.http, token, 'POST', `/workflow_engine/startJobWithOptions/${workflow}`, {
    options: { variables },
  });
  return job._id;
}

async function metrics(platform: TestPlatform, token: string): Promise<{ jobs: JobMetric[]; tasks: TaskMetric[] }> {
  const jobs = await ok<{ results: JobMetric[] }>(platform.http, token, 'GET', '/workflow_engine/jobs/metrics?limit=500');
  const tasks = await ok<{ results: TaskMetric[] }>(platform.http, token, 'GET', '/workflow_engine/tasks/metrics?limit=500');
  return { jobs: jobs.results, tasks: tasks.results };
}

async function archiveCompleted(platform: TestPlatform, token: string, id: string): Promise<JobArchive> {
  return eventually(
    `archive ${id} complete`,
    async () => {
      const page = await ok<{ results: JobArchive[] }>(platform.http, token, 'GET', `/operations-manager/jobs/archives?equals[_id]=${id}`);
      const found = page.results[0];
      return found?.state === 'complete' && found;
    },
    { timeoutMs: 30_000 },
  );
}

/** Downloads an archive through HTTP: its headers, and its jobs (gunzipped, one a line). */
async function download(platform: TestPlatform, token: string, id: string) {
  const res = await fetch(`${platform.url}/operations-manager/jobs/archives/${id}`, { headers: { authorization: `Bearer ${token}` } });
  const bytes = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`Download of ${id}: ${res.status} ${bytes.toString('utf8').slice(0, 500)}`);
  const text = gunzipSync(bytes).toString('utf8');
  const lines = text === '' ? [] : text.trimEnd().split('\n');
  return { headers: res.headers, bytes, jobs: lines.map((l) => JSON.parse(l) as JobDocument) };
}

describe('archiving on request', () => {
  let platform: TestPlatform;
  let token: string;

  beforeAll(async () => {
    platform = await startTestPlatform();
    token = await platform.login();
  });
  afterAll(async () => {
    await platform?.stop();
  });

  it('moves finished root jobs with their child jobs, never a running or paused one, and keeps their metrics', async () => {
    const { http } = platform;
    await ok(http, token, 'POST', '/automation-studio/automations', { automation: greetWorkflow('arch-greet') }, 200);
    await createWorkflow(platform, token, 'arch-parent', {
      cj: task(
        'childJob',
        {
          task: '',
          workflow: 'arch-greet',
          variables: { who: { task: 'static', value: 'child' } },
          data_array: '',
          transformation: '',
          loopType: '',
        },
        { job_details: null },
        { type: 'operation' },
      ),
    });
    await createWorkflow(platform, token, 'arch-fail', {
      q1: task('query', { pass_on_null: false, query: 'absent', obj: '$var.job.data' }, { return_data: null }, { type: 'operation' }),
    });
    await createWorkflow(platform, token, 'arch-wait', { v1: waitingTask() });

    const greets = [await start(platform, token, 'arch-greet', { who: 'a' }), await start(platform, token, 'arch-greet', { who: 'b' })];
    const parent = await start(platform, token, 'arch-parent');
    const failed = await start(platform, token, 'arch-fail', { data: { n: 1 } });
    const [waiting, toPause, toCancel] = [
      await start(platform, token, 'arch-wait'),
      await start(platform, token, 'arch-wait'),
      await start(platform, token, 'arch-wait'),
    ] as [string, string, string];
    for (const id of [...greets, parent]) expect((await waitForJob(platform, token, id)).status).toBe('complete');
    expect((await waitForJob(platform, token, failed)).status).toBe('error');
    await waitForJob(platform, token, toPause, ['running']);
    await ok(http, token, 'POST', `/operations-manager/jobs/${toPause}/pause`);
    await ok(http, token, 'POST', '/operations-manager/jobs/cancel', { jobIds: [toCancel] });
    expect((await waitForJob(platform, token, toCancel)).status).toBe('canceled');
    const child = (await waitForJob(platform, token, parent)).tasks.cj?.childJobs as { _id: string }[];
    expect(child).toHaveLength(1);
    const childId = (child[0] as { _id: string })._id;

    const shown = new Map<string, JobDocument>();
    for (const id of [...greets, parent, childId, failed, toCancel])
      shown.set(id, (await ok<{ data: JobDocument }>(http, token, 'GET', `/operations-manager/jobs/${id}`)).data);
    const before = await metrics(platform, token);

    // the first archive: complete root jobs only; the child goes with its parent
    const cutoff = new Date().toISOString();
    const requested = await ok<JobArchive>(
      http,
      token,
      'POST',
      '/operations-manager/jobs/archive',
      { before: cutoff, status: 'complete' },
      202,
    );
    expect(requested).toMatchObject({
      state: 'running',
      origin: 'request',
      requestedBy: 'admin',
      before: Date.parse(cutoff),
      statuses: ['complete'],
    });
    const first = await archiveCompleted(platform, token, requested._id);
    expect(first).toMatchObject({ jobs: 4, roots: 3, fileName: `${requested._id}.ndjson.gz` });
    expect(first.completedAt).not.toBeNull();

    const file = await download(platform, token, first._id);
    expect(file.headers.get('content-type')).toBe('application/gzip');
    expect(file.headers.get('content-disposition')).toContain(`${first._id}.ndjson.gz`);
    expect(file.bytes.byteLength).toBe(first.bytes);
    expect(file.jobs.map((j) => j._id).sort()).toEqual([...greets, parent, childId].sort());
    for (const job of file.jobs) expect(job).toEqual(shown.get(job._id));
    for (const id of [...greets, parent, childId])
      expect((await http('GET', `/operations-manager/jobs/${id}`, { token })).status).toBe(404);
    expect((await http('GET', `/operations-manager/jobs/${failed}`, { token })).status).toBe(200);

    // metrics count the archived jobs as they counted them live
    expect(await metrics(platform, token)).toEqual(before);

    // the second: every finished status, a cut-off in the future; running and paused jobs stay
    const second = await ok<JobArchive>(http, token, 'POST', '/operations-manager/jobs/archive', { before: Date.now() + DAY_MS }, 202);
    expect(second.statuses).toEqual(['complete', 'error', 'canceled']);
    expect(await archiveCompleted(platform, token, second._id)).toMatchObject({ jobs: 2, roots: 2 });
    expect((await download(platform, token, second._id)).jobs.map((j) => j._id).sort()).toEqual([failed, toCancel].sort());
    expect((await ok<{ data: JobDocument }>(http, token, 'GET', `/operations-manager/jobs/${waiting}`)).data.status).toBe('running');
    expect((await ok<{ data: JobDocument }>(http, token, 'GET', `/operations-manager/jobs/${toPause}`)).data.status).toBe('paused');
    expect(await metrics(platform, token)).toEqual(before);

    const list = await ok<{ results: JobArchive[]; total: number }>(http, token, 'GET', '/operations-manager/jobs/archives');
    expect(list.total).toBe(2);
    expect(list.results.map((a) => a._id)).toEqual([second._id, first._id]);

    // once downloaded, the first archive's file is deleted: the store frees it, the list keeps saying where its jobs went
    const parts = () => platform.stores.get('workflow')?.collection('job_archive_chunks').countDocuments({}) as Promise<number>;
    const partsBefore = await parts();
    const deleted = await ok<JobArchive>(http, token, 'DELETE', `/operations-manager/jobs/archives/${first._id}`);
    expect(deleted).toMatchObject({ _id: first._id, state: 'deleted', deletedBy: 'admin', jobs: 4, roots: 3 });
    expect(Date.parse(deleted.deletedAt as string)).toBeGreaterThan(Date.parse(first.completedAt as string) - 1);
    expect(await parts()).toBeLessThan(partsBefore);
    const gone = await http('GET', `/operations-manager/jobs/archives/${first._id}`, { token });
    expect(gone).toMatchObject({ status: 410, body: { code: 'JOB_ARCHIVE_DELETED' } });
    expect(JSON.stringify(gone.body)).toContain('by admin');
    // asked again (an answer lost, or a deletion cut short after the mark, its parts left): the same
    // archive, its deletion kept as it was, and the parts left removed
    const chunks = platform.stores.get('workflow')?.collection('job_archive_chunks');
    await chunks?.insertOne({ _id: `${first._id}:000009:0`, archive: first._id, batch: `${first._id}:000009`, data: Buffer.from('left') });
    expect(await ok<JobArchive>(http, token, 'DELETE', `/operations-manager/jobs/archives/${first._id}`)).toEqual(deleted);
    expect(await chunks?.countDocuments({ archive: first._id })).toBe(0);
    // the other archive is whole, and the metrics still count every archived job
    expect((await download(platform, token, second._id)).jobs).toHaveLength(2);
    expect(await metrics(platform, token)).toEqual(before);
    const listed = await ok<{ results: JobArchive[] }>(http, token, 'GET', '/operations-manager/jobs/archives?equals[state]=deleted');
    expect(listed.results.map((a) => a._id)).toEqual([first._id]);
    // in the audit trail: who asked for an archive and who deleted it, the archive as target
    const asked = await ok<{ results: { target?: { kind: string; id?: string } }[] }>(
      http,
      token,
      'GET',
      `/audit?operation=workflow.archiveJobs&targetId=${first._id}`,
    );
    expect(asked.results).toEqual([expect.objectContaining({ target: expect.objectContaining({ kind: 'job-archive', id: first._id }) })]);
    const audit = await ok<{ results: { operation: string; target?: { kind: string; id?: string } }[] }>(
      http,
      token,
      'GET',
      `/audit?operation=workflow.deleteJobArchive`,
    );
    // (both deletions: the second asked again)
    const deletion = expect.objectContaining({ target: expect.objectContaining({ kind: 'job-archive', id: first._id }) });
    expect(audit.results).toEqual([deletion, deletion]);
  });

  it('deletes no archive while it is being written, nor one it does not know', async () => {
    const { http } = platform;
    const store = platform.stores.get('workflow');
    await store?.collection('job_archives').insertOne({
      _id: 'still-filling',
      state: 'running',
      origin: 'request',
      before: Date.now(),
      statuses: ['complete'],
      requestedBy: 'admin',
      createdAt: new Date().toISOString(),
      completedAt: null,
      jobs: 3,
      roots: 3,
      bytes: 0,
      nextBatch: 1,
      cursor: null,
      // claimed far in the future: no replica of this platform takes it up meanwhile
      nextRunAt: Date.now() + DAY_MS,
    });
    const refused = await http('DELETE', '/operations-manager/jobs/archives/still-filling', { token });
    expect(refused).toMatchObject({ status: 409, body: { code: 'JOB_ARCHIVE_NOT_READY' } });
    expect(JSON.stringify(refused.body)).toContain('delete it once it is complete');
    expect((await store?.collection('job_archives').findOne({ _id: 'still-filling' }))?.state).toBe('running');
    await store?.collection('job_archives').deleteOne({ _id: 'still-filling' });
    expect(await http('DELETE', '/operations-manager/jobs/archives/no-such-archive', { token })).toMatchObject({
      status: 404,
      body: { code: 'JOB_ARCHIVE_NOT_FOUND' },
    });
  });

  it('answers bad requests and unknown archives with the offending member or id named', async () => {
    const { http } = platform;
    const missing = await http('POST', '/operations-manager/jobs/archive', { token, body: { status: 'complete' } });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toContain('body.before');
    const active = await http('POST', '/operations-manager/jobs/archive', { token, body: { before: Date.now(), status: 'running' } });
    expect(active.status).toBe(400);
    expect(JSON.stringify(active.body)).toContain('body.status');
    const badDate = await http('POST', '/operations-manager/jobs/archive', { token, body: { before: 'yesterday' } });
    expect(badDate.status).toBe(400);
    const unknown = await http('GET', '/operations-manager/jobs/archives/no-such-archive', { token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'JOB_ARCHIVE_NOT_FOUND' });
    // archives hold jobs of every group: administrators only
    const group = await ok<{ data: { _id: string } }>(
      http,
      token,
      'POST',
      '/user-management/groups',
      { group: { name: 'archive-readers' } },
      200,
    );
    await ok(http, token, 'PUT', `/user-management/groups/${group.data._id}/roles`, { roles: ['operations', 'apiread'] });
    await ok(
      http,
      token,
      'POST',
      '/user-management/accounts',
      {
        account: {
          username: 'arch-reader',
          password: 'password-12345',
          firstname: 'A',
          lastname: 'R',
          email: 'ar@example.net',
          groups: [group.data._id],
        },
      },
      200,
    );
    const reader = await platform.login('arch-reader', 'password-12345');
    expect((await http('GET', '/operations-manager/jobs/archives', { token: reader })).status).toBe(403);
    expect((await http('POST', '/operations-manager/jobs/archive', { token: reader, body: { before: Date.now() } })).status).toBe(403);
    expect((await http('DELETE', '/operations-manager/jobs/archives/any', { token: reader })).status).toBe(403);
  });
});

/**
 * Finished jobs as the engine leaves them once their events are out, ended `daysAgo` days ago: roots,
 * each third with a child; with `noiseBytes`, each root carries that much random (incompressible) text.
 */
function oldJobs(prefix: string, roots: number, daysAgo: number, noiseBytes = 0): Record<string, unknown>[] {
  const jobs: Record<string, unknown>[] = [];
  const end = Date.now() - daysAgo * DAY_MS;
  for (let i = 0; i < roots; i += 1) {
    const id = `${prefix}-${String(i).padStart(4, '0')}`;
    const noise = noiseBytes > 0 ? { noise: randomBytes(noiseBytes).toString('base64') } : {};
    jobs.push(finishedJob({ id, name: 'retained-flow', endTime: end + i, variables: noise }));
    if (i % 3 === 0) jobs.push(finishedJob({ id: `${id}-child`, name: 'retained-child', endTime: end + i - 10, parent: id }));
  }
  return jobs;
}

it('runs the active profile retention once per due time with two workflow replicas', async () => {
  const intervalMs = 1_000;
  const platform = await startTestPlatform({ workflow: { retentionIntervalMs: intervalMs, archiveBatchJobs: 25 } });
  let replica: RunningService | undefined;
  try {
    const token = await platform.login();
    const { http } = platform;
    const store = platform.stores.get('workflow');
    if (store === undefined) throw new Error('the platform has no workflow store');
    const metricsRegistry = createMetrics({ defaultLabels: { component: 'replica-2' } });
    replica = await createWorkflowService(
      {
        bus: platform.bus,
        store,
        logger: createLogger({ name: 'replica-2', level: process.env.NAP_LOG_LEVEL ?? 'silent' }),
        metrics: metricsRegistry,
        client: createClient(platform.bus, metricsRegistry),
        config: loadConfig({ NAP_DATA_DIR: platform.dataDir, NAP_PORT: '0', NAP_SECRET_KEY: 'test-secret-key-of-32-characters' }),
      },
      { serverId: 'replica-2', retentionIntervalMs: intervalMs, archiveBatchJobs: 25 },
    ).start();

    // jobs of 40 and 20 days ago; the default profile keeps jobs 90 days
    const seeded = [...oldJobs('forty', 60, 40), ...oldJobs('twenty', 30, 20)];
    await store.collection('jobs').insertMany(seeded as { _id: string }[]);
    const before = await metrics(platform, token);
    const profile = (await ok<{ profile: Record<string, unknown> }>(http, token, 'GET', '/profiles/default')).profile;
    expect(profile.retentionProps).toEqual({ jobsDays: 90 });
    const retention = await store.collection('job_retention').findOne({ _id: 'jobs' });
    await eventually('a due time passes with the 90 days retention', async () => {
      const now = await store.collection('job_retention').findOne({ _id: 'jobs' });
      return Number(now?.lastRunAt ?? 0) > Number(retention?.lastRunAt ?? 0);
    });
    expect(await store.collection('jobs').countDocuments({})).toBe(seeded.length);

    // 30 days: the jobs of 40 days ago go at the next due time, those of 20 days ago stay
    const changed = await ok<{ applied: string[] }>(http, token, 'PUT', '/profiles/default', {
      properties: { ...profile, retentionProps: { jobsDays: 30 } },
    });
    expect(changed.applied).toContain('retentionProps.jobsDays');
    const forty = seeded.filter((j) => String(j._id).startsWith('forty'));
    const archives = await eventually(
      'the retention archive of the 40-day-old jobs complete',
      async () => {
        const page = await ok<{ results: JobArchive[] }>(http, token, 'GET', '/operations-manager/jobs/archives?equals[origin]=retention');
        return page.results.length > 0 && page.results.every((a) => a.state === 'complete') && page.results;
      },
      { timeoutMs: 30_000 },
    );
    expect(archives).toHaveLength(1);
    const [archive] = archives as [JobArchive];
    expect(archive).toMatchObject({ origin: 'retention', requestedBy: 'retention', jobs: forty.length, roots: 60 });

    // two more due times pass: nothing more is old enough, and no replica makes a second archive
    const ran = Number((await store.collection('job_retention').findOne({ _id: 'jobs' }))?.lastRunAt ?? 0);
    await eventually('two more due times', async () => {
      const now = await store.collection('job_retention').findOne({ _id: 'jobs' });
      return Number(now?.lastRunAt ?? 0) >= ran + 2 * intervalMs;
    });
    const all = await ok<{ results: JobArchive[]; total: number }>(http, token, 'GET', '/operations-manager/jobs/archives');
    expect(all.total).toBe(1);

    const file = await download(platform, token, archive._id);
    const ids = file.jobs.map((j) => j._id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(forty.map((j) => String(j._id)).sort());
    expect(await store.collection('jobs').countDocuments({})).toBe(seeded.length - forty.length);
    expect(await metrics(platform, token)).toEqual(before);
  } finally {
    await replica?.stop();
    await platform.stop();
  }
}, 90_000);

it('downloads an archive larger than a bus message over a real nats-server, in parts, as one file', async () => {
  const nats = await startNatsServer({ jetstream: true });
  const bus = await createNatsBus({ servers: nats.url, name: 'jobs-archive-test' });
  const platform = await startTestPlatform({ bus });
  try {
    const token = await platform.login();
    const store = platform.stores.get('workflow');
    if (store === undefined) throw new Error('the platform has no workflow store');
    // 24 jobs of 100 KB of random text: about 1.8 MB compressed, more than NATS's default max_payload (1 MiB) and four parts
    const seeded = oldJobs('big', 24, 1, 75_000);
    await store.collection('jobs').insertMany(seeded as { _id: string }[]);
    const requested = await ok<JobArchive>(platform.http, token, 'POST', '/operations-manager/jobs/archive', { before: Date.now() }, 202);
    const archive = await archiveCompleted(platform, token, requested._id);
    expect(archive.bytes).toBeGreaterThan(1024 * 1024);
    const file = await download(platform, token, archive._id);
    expect(file.bytes.byteLength).toBe(archive.bytes);
    expect(file.jobs.map((j) => j._id).sort()).toEqual(seeded.map((j) => String(j._id)).sort());
    const noise = new Map(seeded.map((j) => [String(j._id), (j.variables as { noise?: string }).noise]));
    for (const job of file.jobs) expect((job.variables as { noise?: string }).noise).toBe(noise.get(job._id));
  } finally {
    await platform.stop();
    await nats.stop();
  }
}, 90_000);
