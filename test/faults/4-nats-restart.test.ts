/**
 * Scenario 4: distributed; nats-server is killed and started again (its JetStream store kept) under
 * a steady trickle of job starts and reads. During the outage clients get an answer at once, 503
 * (never a hang past the operation's timeout, never a 500); service is back within 5 s of NATS; no
 * job whose start was answered is lost; every job's event stream (JetStream) is complete and in
 * order, a repeat (same seq) being allowed: job events are delivered at least once.
 *
 * The workflow's tasks are built-ins, so the jobs themselves need no bus while it is down; their
 * events wait in each job's outbox and are published when the bus is back.
 */
import { createNatsBus } from '@nap/bus';
import type { BusEvent } from '@nap/bus';
import { getOperation } from '@nap/contracts';
import type { WorkflowDocument } from '@nap/contracts';
import { eventually, task, workflowDocument } from '@nap/testing';
import { sleep } from '@nap/util';
import { figure, quantile } from './support/figures';
import { waitForJobsToEnd } from './support/jobs';
import { Distributed, dataDirectory, progress } from './support/platform';

const SCENARIO = '4 distributed nats-server restart under a trickle';
const TRICKLE_EVERY_MS = 100;
const OUTAGE_MS = 5_000;
/** How long the trickle goes on once nats-server listens again (the figures look at the first 5 s). */
const AFTER_MS = 8_000;
/** Time a request may take beyond its operation's timeout before it counts as held (scheduling on a loaded machine). */
const HELD_GRACE_MS = 2_000;

interface Sent {
  kind: 'start' | 'read';
  sentAt: number;
  answeredAt: number;
  status: number;
  error?: string;
  jobId?: string;
}

const data = dataDirectory('nats');
let platform: Distributed;

afterAll(async () => {
  await platform?.stop();
  data.remove();
});

const TASKS = ['d1', 'n2', 'd3'];

function trickleWorkflow(): WorkflowDocument {
  const delay = task('delay', { time: 0.5 }, { time_in_milliseconds: null });
  return workflowDocument(
    'fault-trickle',
    { d1: delay, n2: task('newVariable', { name: 'between', value: true }, { value: null }, { type: 'operation' }), d3: delay },
    [
      ['workflow_start', 'd1'],
      ['d1', 'n2'],
      ['n2', 'd3'],
      ['d3', 'workflow_end'],
    ],
  );
}

/**
 * Every job event in the stream, read from its start until the jobComplete of every job in `jobIds`
 * came (each job's last event: its events are published in order), or the bound passed: a stream
 * that lacks one is then reported by {@link checkStream}, not here.
 */
async function readJobEvents(url: string, jobIds: string[]): Promise<BusEvent[]> {
  const bus = await createNatsBus({ servers: url, name: 'fault-campaign-reader' });
  const events: BusEvent[] = [];
  const completed = new Set<string>();
  try {
    const sub = await bus.consumeEvents(
      'nap.evt.workflow.job.>',
      (event) => {
        events.push(event);
        const [, , , , jobId, name] = event.subject.split('.');
        if (name === 'jobComplete' && jobId !== undefined) completed.add(jobId);
      },
      { deliver: 'all' },
    );
    await eventually('the jobComplete event of every started job', () => jobIds.every((id) => completed.has(id)), {
      timeoutMs: 60_000,
      intervalMs: 200,
    }).catch(() => undefined);
    await sub.unsubscribe();
  } finally {
    await bus.close();
  }
  return events;
}

/** What is wrong with the event stream of one job (empty when it is complete and in order), and how many repeats it had. */
function checkStream(events: { name: string; seq: number; taskId?: string }[]): { problems: string[]; repeats: number } {
  const problems: string[] = [];
  let last = 0;
  let repeats = 0;
  const kept: { name: string; seq: number; taskId?: string }[] = [];
  for (const e of events) {
    if (e.seq <= last) {
      repeats += 1;
      continue;
    }
    if (e.seq !== last + 1) problems.push(`seq ${e.seq} follows ${last}`);
    last = e.seq;
    kept.push(e);
  }
  if (kept[0]?.name !== 'jobStart') problems.push(`first event ${kept[0]?.name ?? 'none'}`);
  if (kept.at(-1)?.name !== 'jobComplete') problems.push(`last event ${kept.at(-1)?.name ?? 'none'}`);
  for (const task of TASKS) {
    for (const name of ['taskStart', 'taskFinish']) {
      if (!kept.some((e) => e.name === name && e.taskId === task)) problems.push(`no ${name} of ${task}`);
    }
    const start = kept.findIndex((e) => e.name === 'taskStart' && e.taskId === task);
    const finish = kept.findIndex((e) => e.name === 'taskFinish' && e.taskId === task);
    if (start >= 0 && finish >= 0 && finish < start) problems.push(`taskFinish of ${task} before its taskStart`);
  }
  return { problems, repeats };
}

it('answers at once while NATS is down, recovers within seconds of it, and loses no job and no event', async () => {
  platform = await Distributed.start(data.dir);
  const { client, nats } = platform;
  await client.ok('POST', '/automation-studio/automations', { automation: trickleWorkflow() });

  const sent: Sent[] = [];
  const pending = new Set<Promise<void>>();
  let running = true;
  let lastJob: string | undefined;
  const trickle = (async () => {
    for (let n = 0; running; n += 1) {
      const kind: Sent['kind'] = n % 2 === 0 ? 'start' : 'read';
      const sentAt = Date.now();
      const request =
        kind === 'start'
          ? client.request(
              'POST',
              '/workflow_engine/startJobWithOptions/fault-trickle',
              { options: { variables: { n } } },
              { timeoutMs: 120_000 },
            )
          : client.request('GET', lastJob ? `/operations-manager/jobs/${lastJob}` : '/whoami', undefined, { timeoutMs: 120_000 });
      const p = request.then((res) => {
        const id = (res.body as { _id?: unknown } | undefined)?._id;
        const jobId = kind === 'start' && res.status === 200 && typeof id === 'string' ? id : undefined;
        if (jobId) lastJob = jobId;
        sent.push({
          kind,
          sentAt,
          answeredAt: Date.now(),
          status: res.status,
          ...(res.error ? { error: res.error } : {}),
          ...(jobId ? { jobId } : {}),
        });
      });
      pending.add(p);
      void p.then(() => pending.delete(p));
      await sleep(TRICKLE_EVERY_MS);
    }
  })();

  // the trickle runs (jobs started and read) before the outage
  await eventually(
    'ten jobs started and ten reads answered before the outage',
    () =>
      sent.filter((x) => x.kind === 'start' && x.status === 200).length >= 10 &&
      sent.filter((x) => x.kind === 'read' && x.status === 200).length >= 10,
    { timeoutMs: 60_000 },
  );
  const downAt = Date.now();
  await nats.kill();
  progress('scenario 4: nats-server killed');
  // the outage and the window after it are durations of the scenario: waiting is the point
  await sleep(OUTAGE_MS);
  const upAt = Date.now();
  await nats.restart();
  const listeningAt = Date.now();
  progress(`scenario 4: nats-server listening again after ${listeningAt - upAt} ms`);
  await sleep(AFTER_MS);
  running = false;
  await trickle;
  await Promise.all([...pending]);

  const acknowledged = sent.filter((s) => s.jobId !== undefined).map((s) => s.jobId as string);
  const { notComplete } = await waitForJobsToEnd(client, acknowledged, 120_000);

  const events = await readJobEvents(nats.url, acknowledged);
  const byJob = new Map<string, { name: string; seq: number; taskId?: string }[]>();
  for (const e of events) {
    const parts = e.subject.split('.');
    const jobId = parts[4] as string;
    const payload = JSON.parse(Buffer.from(e.data).toString('utf8')) as { seq: number; taskId?: string };
    byJob.set(jobId, [
      ...(byJob.get(jobId) ?? []),
      { name: parts[5] as string, seq: payload.seq, ...(payload.taskId ? { taskId: payload.taskId } : {}) },
    ]);
  }
  const streamProblems: string[] = [];
  let repeats = 0;
  for (const jobId of acknowledged) {
    const { problems, repeats: r } = checkStream(byJob.get(jobId) ?? []);
    repeats += r;
    if (problems.length > 0) streamProblems.push(`${jobId}: ${problems.join(', ')}`);
  }

  const timeoutOf = (s: Sent) => getOperation(s.kind === 'start' ? 'workflow.startJobWithOptions' : 'workflow.getJob').timeoutMs;
  const held = sent.filter((s) => s.answeredAt - s.sentAt > timeoutOf(s) + HELD_GRACE_MS || s.status === 0);
  const serverErrors = sent.filter((s) => s.status === 500);
  const during = sent.filter((s) => s.sentAt >= downAt && s.sentAt < listeningAt);
  const byStatus = (list: Sent[]) =>
    Object.entries(list.reduce<Record<string, number>>((acc, s) => ({ ...acc, [s.status]: (acc[s.status] ?? 0) + 1 }), {}))
      .map(([status, n]) => `${n}×${status}`)
      .join(', ');
  const first503 = during.filter((s) => s.status === 503).map((s) => s.answeredAt - downAt);
  const duringMs = during.map((s) => s.answeredAt - s.sentAt);
  const backAfter = (kind: Sent['kind']) => {
    const ok = sent
      .filter((s) => s.kind === kind && s.sentAt >= listeningAt && s.status >= 200 && s.status < 300)
      .map((s) => s.answeredAt - listeningAt);
    return ok.length > 0 ? Math.min(...ok) : NaN;
  };

  figure(SCENARIO, 'requests sent (starts and reads)', sent.length);
  figure(SCENARIO, 'outage (nats-server down)', listeningAt - downAt, 'ms');
  figure(SCENARIO, 'answers to requests sent during the outage', byStatus(during) || 'none');
  figure(
    SCENARIO,
    'answers to requests sent in the 5 s after it',
    byStatus(sent.filter((s) => s.sentAt >= listeningAt && s.sentAt < listeningAt + 5_000)) || 'none',
  );
  figure(
    SCENARIO,
    'NATS down to first 503',
    first503.length > 0 ? Math.min(...first503) : 'no 503',
    first503.length > 0 ? 'ms' : '',
    'at once',
  );
  figure(
    SCENARIO,
    'answer time during the outage, p50/max',
    `${quantile(duringMs, 0.5).toFixed(0)} / ${duringMs.length > 0 ? Math.max(...duringMs).toFixed(0) : 'NaN'} ms`,
    '',
    'at once (not the operation timeout)',
  );
  figure(SCENARIO, 'NATS back to first 2xx start', backAfter('start'), 'ms', '<= 5000 ms');
  figure(SCENARIO, 'NATS back to first 2xx read', backAfter('read'), 'ms', '<= 5000 ms');
  figure(SCENARIO, 'jobs started (answered 200)', acknowledged.length);
  figure(SCENARIO, 'started jobs not complete', notComplete.length, '', '0');
  figure(SCENARIO, 'job event streams incomplete or out of order', streamProblems.length, '', '0');
  figure(SCENARIO, 'events delivered again (same seq, at-least-once)', repeats);
  figure(SCENARIO, '500 answers / requests held past their timeout', `${serverErrors.length} / ${held.length}`, '', '0 / 0');

  expect(notComplete).toEqual([]);
  expect(streamProblems).toEqual([]);
  expect(serverErrors.map((s) => `${s.kind} at +${s.sentAt - downAt} ms: 500`)).toEqual([]);
  expect(
    held.map((s) => `${s.kind} at +${s.sentAt - downAt} ms: ${s.status} ${s.error ?? ''} after ${s.answeredAt - s.sentAt} ms`),
  ).toEqual([]);
  expect(platform.crashed()).toEqual([]);
});
