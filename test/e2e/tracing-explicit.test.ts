// The trace of a request in a process without a context manager, as every process of the platform
// runs (initTracing's default): the gateway and serve() hand the trace context on themselves, so
// one trace still runs from the HTTP request through every service it reaches.
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { JobDocument } from '@nap/contracts';
import { initTracing, SpanKind, withSpan } from '@nap/telemetry';
import type { Tracing } from '@nap/telemetry';
import { TEST_ADMIN, startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually, task, workflowDocument } from '@nap/testing';
import { createAutomation, waitForJob } from '../support/automation';

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let platform: TestPlatform;

beforeAll(async () => {
  tracing = initTracing({ serviceName: 'nap-trace-explicit-test', exporter, simple: true });
  platform = await startTestPlatform();
});

afterAll(async () => {
  await platform.stop();
  await tracing.shutdown();
});

it('carries no active context through async code (what makes the rest of this file mean something)', async () => {
  await withSpan('outer', SpanKind.INTERNAL, {}, async (span, ctx) => {
    await Promise.resolve();
    expect(trace.getSpan(context.active())).toBeUndefined();
    expect(trace.getSpan(ctx)?.spanContext().spanId).toBe(span.spanContext().spanId);
  });
});

it('runs one trace from the HTTP request through the service handler into the service it calls', async () => {
  const token = await platform.login();
  exporter.reset();
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  // the workflow service asks the studio for the workflow (ctx.call) before it starts a job
  const res = await platform.http('POST', '/workflow_engine/startJobWithOptions/no-such-workflow', {
    token,
    body: { options: {} },
    headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
  });
  expect(res.status).toBe(404);
  const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
  const named = (kind: SpanKind, name: string): ReadableSpan => {
    const found = spans.find((s) => s.kind === kind && s.name === name);
    if (found === undefined) throw new Error(`no ${SpanKind[kind]} span "${name}" in the trace: ${spans.map((s) => s.name).join(', ')}`);
    return found;
  };
  const http = named(SpanKind.SERVER, 'POST /workflow_engine/startJobWithOptions/:workflow');
  const toWorkflow = named(SpanKind.CLIENT, 'workflow.startJobWithOptions send');
  const workflow = named(SpanKind.SERVER, 'workflow.startJobWithOptions');
  const toStudio = named(SpanKind.CLIENT, 'studio.getWorkflow send');
  const studio = named(SpanKind.SERVER, 'studio.getWorkflow');
  expect(http.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
  expect(toWorkflow.parentSpanContext?.spanId).toBe(http.spanContext().spanId);
  expect(workflow.parentSpanContext?.spanId).toBe(toWorkflow.spanContext().spanId);
  expect(toStudio.parentSpanContext?.spanId).toBe(workflow.spanContext().spanId);
  expect(studio.parentSpanContext?.spanId).toBe(toStudio.spanContext().spanId);
  // the new session was not cached yet: the gateway resolved it within the request's trace
  expect(named(SpanKind.CLIENT, 'admin.resolveSession send').parentSpanContext?.spanId).toBe(http.spanContext().spanId);
});

it('puts the check of Basic credentials in the trace of the request that brought them', async () => {
  exporter.reset();
  const traceId = '0af7651916cd43dd8448eb211c80319c';
  const res = await platform.http('GET', '/whoami', {
    headers: {
      authorization: `Basic ${Buffer.from(`${TEST_ADMIN.username}:${TEST_ADMIN.password}`).toString('base64')}`,
      traceparent: `00-${traceId}-b7ad6b7169203331-01`,
    },
  });
  expect(res.status).toBe(200);
  const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
  const http = spans.find((s) => s.kind === SpanKind.SERVER && s.name === 'GET /whoami');
  const check = spans.find((s) => s.kind === SpanKind.CLIENT && s.name === 'admin.authenticate send');
  expect(http?.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
  expect(check?.parentSpanContext?.spanId).toBe(http?.spanContext().spanId);
});

it("puts a job's task calls, its child job's and what they call in the trace of the request that started it", async () => {
  const token = await platform.login();
  // the child calls the studio in a task of its own; the parent calls it, then runs the child
  const child = workflowDocument('trace-child', { g1: task('getComponentGroups', {}, { groups: null }, { app: 'AutomationStudio' }) }, [
    ['workflow_start', 'g1'],
    ['g1', 'workflow_end'],
  ]);
  const parent = workflowDocument(
    'trace-parent',
    {
      t1: task('getTags', {}, { tags: null }, { app: 'AutomationStudio' }),
      cj: task(
        'childJob',
        { task: '', workflow: 'trace-child', variables: {}, data_array: [{ n: 1 }], transformation: '', loopType: 'parallel' },
        { job_details: null },
        { type: 'operation' },
      ),
    },
    [
      ['workflow_start', 't1'],
      ['t1', 'cj'],
      ['cj', 'workflow_end'],
    ],
  );
  for (const automation of [child, parent])
    expect((await platform.http('POST', '/automation-studio/automations', { token, body: { automation } })).status).toBe(200);
  exporter.reset();
  const traceId = '5c3f9a1e2b7d4c8e9f0a1b2c3d4e5f60';
  const started = await platform.http('POST', '/workflow_engine/startJobWithOptions/trace-parent', {
    token,
    body: { options: {} },
    headers: { traceparent: `00-${traceId}-a1b2c3d4e5f60718-01`, tracestate: 'nap=t61' },
  });
  expect(started.status).toBe(200);
  const jobId = (started.body as JobDocument)._id;
  const job = await waitForJob(platform, token, jobId);
  expect(job.status).toBe('complete');

  const spans = (): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
  const all = (kind: SpanKind, name: string): ReadableSpan[] => spans().filter((s) => s.kind === kind && s.name === name);
  const named = (kind: SpanKind, name: string): ReadableSpan => {
    const [found, ...others] = all(kind, name);
    if (found === undefined || others.length > 0)
      throw new Error(
        `not one ${SpanKind[kind]} span "${name}" in the trace: ${spans()
          .map((s) => s.name)
          .join(', ')}`,
      );
    return found;
  };
  // the called service ends its SERVER span as it answers: it may be exported just after the job ended
  await eventually("the called services' spans", () => all(SpanKind.SERVER, 'studio.getComponentGroups').length === 1, {
    timeoutMs: 5_000,
  });
  const http = named(SpanKind.SERVER, 'POST /workflow_engine/startJobWithOptions/:workflow');
  const workflow = named(SpanKind.SERVER, 'workflow.startJobWithOptions');
  expect(http.parentSpanContext?.spanId).toBe('a1b2c3d4e5f60718');
  expect(named(SpanKind.CLIENT, 'workflow.startJobWithOptions send').parentSpanContext?.spanId).toBe(http.spanContext().spanId);
  const start = workflow.spanContext().spanId;
  // the parent's task call, and the studio answering it
  const toTags = named(SpanKind.CLIENT, 'studio.getTags send');
  expect(toTags.parentSpanContext?.spanId).toBe(start);
  expect(named(SpanKind.SERVER, 'studio.getTags').parentSpanContext?.spanId).toBe(toTags.spanContext().spanId);
  // the start's own read of the workflow, and the child job's read of its workflow
  const reads = all(SpanKind.CLIENT, 'studio.getWorkflow send');
  expect(reads).toHaveLength(2);
  for (const read of reads) expect(read.parentSpanContext?.spanId).toBe(start);
  // the child job's task call, and the studio answering it
  const toGroups = named(SpanKind.CLIENT, 'studio.getComponentGroups send');
  expect(toGroups.parentSpanContext?.spanId).toBe(start);
  expect(named(SpanKind.SERVER, 'studio.getComponentGroups').parentSpanContext?.spanId).toBe(toGroups.spanContext().spanId);
  // the studio's server spans carry the caller's tracestate on
  expect(toTags.spanContext().traceState?.get('nap')).toBe('t61');

  // the job stores the trace it belongs to (what an engine that takes it over reads), and never shows it
  const jobs = platform.stores.get('workflow')?.collection<{ _id: string; traceContext?: unknown }>('jobs');
  const stored = await jobs?.findOne({ _id: jobId });
  expect(stored?.traceContext).toEqual({ traceparent: `00-${traceId}-${start}-01`, tracestate: 'nap=t61' });
  const childId = ((job.tasks.cj?.childJobs ?? []) as { _id: string }[])[0]?._id;
  expect((await jobs?.findOne({ _id: String(childId) }))?.traceContext).toEqual(stored?.traceContext);
  expect(job).not.toHaveProperty('traceContext');
  const page = await platform.http('GET', `/operations-manager/jobs?equals[_id]=${jobId}&exclude=tasks`, { token });
  expect(page.status).toBe(200);
  expect((page.body as { items: Record<string, unknown>[] }).items).toEqual([
    expect.not.objectContaining({ traceContext: expect.anything() }),
  ]);
  expect((page.body as { items: Record<string, unknown>[] }).items[0]?._id).toBe(jobId);
  for (const query of [
    `equals[traceContext.traceparent]=00-${traceId}`,
    `starts-with[traceContext.traceparent]=00`,
    'include=traceContext',
    'sort=traceContext',
  ])
    expect(await platform.http('GET', `/operations-manager/jobs?${query}`, { token })).toMatchObject({
      status: 400,
      body: { code: 'JOB_QUERY_INVALID' },
    });
});

it("keeps a job a trigger run on request started in the request's trace, and gives a scheduled job a trace of its own", async () => {
  const token = await platform.login();
  const workflow = workflowDocument('trace-own', { t1: task('getTags', {}, { tags: null }, { app: 'AutomationStudio' }) }, [
    ['workflow_start', 't1'],
    ['t1', 'workflow_end'],
  ]);
  const actionId = await createAutomation(platform, token, workflow);
  const trigger = await platform.http('POST', '/operations-manager/triggers', {
    token,
    body: { name: 'trace own', type: 'endpoint', actionId, routeName: 'trace-own' },
  });
  expect(trigger.status).toBe(200);
  const spansOf = (traceId: string | undefined, name: string): ReadableSpan[] =>
    exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId && s.name === name);
  /** The task call's CLIENT span of a job in trace `traceId`, once the studio answered it. */
  const taskCall = async (traceId: string | undefined): Promise<ReadableSpan | undefined> => {
    await eventually('the studio answering the task', () => spansOf(traceId, 'studio.getTags').length === 1, { timeoutMs: 5_000 });
    const [toTags, ...more] = spansOf(traceId, 'studio.getTags send');
    expect(more).toEqual([]);
    expect(spansOf(traceId, 'studio.getTags')[0]?.parentSpanContext?.spanId).toBe(toTags?.spanContext().spanId);
    return toTags;
  };

  // an endpoint trigger run is a request: its job's task calls are in that request's trace
  exporter.reset();
  const traceId = '5bf92f3577b34da6a3ce929d0e0e4737';
  const started = await platform.http('POST', '/operations-manager/triggers/endpoint/trace-own', {
    token,
    body: {},
    headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
  });
  expect(started.status).toBe(200);
  const jobId = (started.body as { data: JobDocument }).data._id;
  expect((await waitForJob(platform, token, jobId)).status).toBe('complete');
  const [run] = spansOf(traceId, 'workflow.runEndpointTrigger');
  expect(run?.kind).toBe(SpanKind.SERVER);
  expect((await taskCall(traceId))?.parentSpanContext?.spanId).toBe(run?.spanContext().spanId);
  expect(exporter.getFinishedSpans().some((s) => s.name === 'workflow.job' && s.attributes['nap.job_id'] === jobId)).toBe(false);

  // a schedule has no request: its job gets a root span of its own, which its task calls belong to
  exporter.reset();
  const scheduled = await platform.http('POST', '/operations-manager/triggers', {
    token,
    body: { name: 'trace own schedule', type: 'schedule', actionId, firstRunAt: Date.now() + 200 },
  });
  expect(scheduled.status).toBe(200);
  const root = await eventually(
    "the scheduled job's own trace",
    () => exporter.getFinishedSpans().find((s) => s.name === 'workflow.job' && s.attributes['nap.trigger_type'] === 'schedule'),
    { timeoutMs: 15_000 },
  );
  expect(root).toMatchObject({ kind: SpanKind.INTERNAL, attributes: { 'nap.workflow': 'trace-own' } });
  expect(root.parentSpanContext).toBeUndefined();
  expect((await taskCall(root.spanContext().traceId))?.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
});
