// The trace of a request in a process without a context manager, as every process of the platform
// runs (initTracing's default): the gateway and serve() hand the trace context on themselves, so
// one trace still runs from the HTTP request through every service it reaches.
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { initTracing, SpanKind, withSpan } from '@nap/telemetry';
import type { Tracing } from '@nap/telemetry';
import { TEST_ADMIN, startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

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
