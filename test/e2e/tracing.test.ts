import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { initTracing, SpanKind } from '@nap/telemetry';
import type { Tracing } from '@nap/telemetry';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let platform: TestPlatform;

beforeAll(async () => {
  // the opt-in context manager (the platform's processes run without one: tracing-explicit.test.ts)
  tracing = initTracing({ serviceName: 'nap-trace-test', exporter, simple: true, asyncContext: true });
  platform = await startTestPlatform();
});

afterAll(async () => {
  await platform.stop();
  await tracing.shutdown();
});

it('runs one trace from the HTTP request at the gateway into the service handler', async () => {
  const token = await platform.login();
  exporter.reset();
  const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  const res = await platform.http('GET', '/user-management/roles', { token, headers: { traceparent } });
  expect(res.status).toBe(200);
  const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === '4bf92f3577b34da6a3ce929d0e0e4736');
  const http = spans.find((s) => s.kind === SpanKind.SERVER && s.name === 'GET /user-management/roles');
  const client = spans.find((s) => s.kind === SpanKind.CLIENT && s.name.startsWith('admin.getAssignableRoles'));
  const server = spans.find((s) => s.kind === SpanKind.SERVER && s.name === 'admin.getAssignableRoles');
  expect(http?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
  expect(client?.parentSpanContext?.spanId).toBe(http?.spanContext().spanId);
  expect(server?.parentSpanContext?.spanId).toBe(client?.spanContext().spanId);
});
