import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * `OTEL_EXPORTER_OTLP_ENDPOINT` alone turns spans on: the SDK and the OTLP/HTTP exporter, loaded on
 * first use rather than at start, send them to the collector it names. Runs the built package in a
 * process of its own, as a service's main.ts uses it, with a collector that is an HTTP server keeping
 * what is posted to it.
 */

const DIST = path.resolve(__dirname, '../dist/index.js');

// a collector, a process whose environment names it, one span; prints what the collector received
const CHILD = `
const http = require('node:http');
const received = [];
const collector = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => { received.push({ path: req.url, type: req.headers['content-type'], body }); res.end('{}'); });
});
collector.listen(0, '127.0.0.1', async () => {
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = 'http://127.0.0.1:' + collector.address().port;
  const telemetry = require(${JSON.stringify(DIST)});
  const tracing = telemetry.initTracing({ serviceName: 'nap-otlp-test' });
  await telemetry.withSpan('GET /whoami', telemetry.SpanKind.SERVER, { 'http.route': '/whoami' }, async () => 'answered');
  await tracing.shutdown(); // flushes the batch
  collector.close();
  process.stdout.write(JSON.stringify({ enabled: tracing.enabled, received }));
});
`;

it('sends spans to the collector OTEL_EXPORTER_OTLP_ENDPOINT names, with the service name', () => {
  if (!existsSync(DIST)) throw new Error('packages/telemetry/dist is missing: run `npm run build` at the repository root first');
  const child = spawnSync(process.execPath, ['-e', CHILD], { encoding: 'utf8', timeout: 30_000 });
  expect({ exit: child.status, stderr: child.stderr }).toEqual({ exit: 0, stderr: '' });
  const { enabled, received } = JSON.parse(child.stdout) as { enabled: boolean; received: { path: string; type: string; body: string }[] };
  expect(enabled).toBe(true);
  expect(received.map((r) => [r.path, r.type])).toEqual([['/v1/traces', 'application/json']]);
  expect(received[0]?.body).toContain('GET /whoami');
  expect(received[0]?.body).toContain('nap-otlp-test');
});
