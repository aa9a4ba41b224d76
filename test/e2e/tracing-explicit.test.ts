// The trace of a request in a process without a context manager, as the distributed gateway runs
// (initTracing({ asyncContext: false })): the gateway and serve() hand the trace context on
// themselves, so one trace still runs from the HTTP request through every service it reaches.
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { initTracing, SpanKind, withSpan } from '@nap/telemetry';
import type { Tracing } from '@nap/telemetry';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let platform: TestPlatform;

beforeAll(async () => {
  tracing = initTracing({ serviceName: 'nap-trace-explicit-test', exporter, simple: true, asyncContext: false });
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
  // a session the gateway had to resolve is part of the request's trace too
  for (const resolve of spans.filter((s) => s.name === 'admin.resolveSession send'))
    expect(resolve.parentSpanContext?.spanId).toBe(http.spanContext().spanId);
});
