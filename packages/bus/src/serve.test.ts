import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { AppError, SYSTEM_CALLER, boundCallsByRequestDeadline, currentDeadline, subjectOf, getOperation } from '@nap/contracts';
import { createLogger, createMetrics, initTracing, SpanKind } from '@nap/telemetry';
import type { Tracing } from '@nap/telemetry';
import { startNatsServer } from '@nap/testing';
import type { NatsServer } from '@nap/testing';
import { createBusClient } from './client';
import { createMemoryBus } from './memory-bus';
import { createNatsBus } from './nats-bus';
import { jsonTextReply, serve } from './serve';
import type { Bus, RegisteredService } from './types';

const logger = createLogger({ name: 'serve-test', level: 'silent' });
const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let nats: NatsServer;

beforeAll(async () => {
  tracing = initTracing({ serviceName: 'serve-test', exporter, simple: true });
  nats = await startNatsServer({ jetstream: true });
});

afterAll(async () => {
  await tracing.shutdown();
  await nats.stop();
});

const implementations: [string, () => Promise<Bus>][] = [
  ['MemoryBus', async () => createMemoryBus()],
  ['NatsBus', async () => createNatsBus({ servers: nats.url, name: 'serve-test' })],
];

describe.each(implementations)('serve() on %s', (_name, makeBus) => {
  let bus: Bus;
  let service: RegisteredService;
  const metrics = createMetrics({ processMetrics: false });

  beforeAll(async () => {
    bus = await makeBus();
    service = await serve({
      bus,
      service: 'admin',
      version: '0.0.0-test',
      logger,
      metrics,
      handlers: {
        getGroup: async (input: { params: { groupId: string } }, ctx) => {
          if (input.params.groupId === 'context') {
            // what the handler context offers, and that `log` is no own getter of it (see RequestContext)
            const offered = ['operation', 'caller', 'requestId', 'deadline', 'call', 'callDynamic', 'publishEvent', 'audit'].filter(
              (member) => (ctx as unknown as Record<string, unknown>)[member] !== undefined,
            );
            const ownLog = Object.getOwnPropertyDescriptor(ctx, 'log') !== undefined;
            return { _id: ctx.operation.id, name: `${offered.join(',')}; own log ${ownLog}; ${typeof ctx.log.info}` };
          }
          if (input.params.groupId === 'boom') throw new Error('secret internal detail');
          if (input.params.groupId === 'huge') {
            // what JSON.stringify throws past the longest string the runtime holds (writing one would take 512 MiB)
            const huge = { _id: 'huge', name: 'g' };
            Object.defineProperty(huge, 'toJSON', {
              value: () => {
                throw new RangeError('Invalid string length');
              },
            });
            return huge;
          }
          if (input.params.groupId === 'missing') throw new AppError('GROUP_NOT_FOUND', 'No group with id "missing"');
          if (input.params.groupId === 'slow') await new Promise((r) => setTimeout(r, 500));
          if (input.params.groupId.startsWith('text')) {
            const json = JSON.stringify({ _id: input.params.groupId, name: 'g "é"', members: [1, { a: null }] });
            return input.params.groupId === 'text' ? jsonTextReply(json) : jsonTextReply(json, 203);
          }
          return { _id: input.params.groupId, name: 'g' };
        },
      },
    });
  });

  afterAll(async () => {
    await service.stop();
    await bus.close();
  });

  const client = () => createBusClient({ bus });
  const call = (groupId: string, timeoutMs?: number) =>
    client().call('admin.getGroup', { params: { groupId } }, { caller: SYSTEM_CALLER, ...(timeoutMs ? { timeoutMs } : {}) });

  it('answers with the handler result and the catalog status', async () => {
    await expect(call('g1')).resolves.toEqual({ status: 200, body: { _id: 'g1', name: 'g' } });
  });

  it('answers JSON text as it is, with the catalog status or the one given', async () => {
    const body = { name: 'g "é"', members: [1, { a: null }] };
    await expect(call('text')).resolves.toEqual({ status: 200, body: { _id: 'text', ...body } });
    await expect(call('text203')).resolves.toEqual({ status: 203, body: { _id: 'text203', ...body } });
  });

  it('gives the handler its context, the logger made on first use', async () => {
    await expect(call('context')).resolves.toMatchObject({
      body: {
        _id: 'admin.getGroup',
        name: 'operation,caller,requestId,deadline,call,callDynamic,publishEvent,audit; own log false; function',
      },
    });
  });

  it('turns a thrown AppError into its status and code', async () => {
    await expect(call('missing')).rejects.toMatchObject({ status: 404, code: 'GROUP_NOT_FOUND' });
  });

  it('turns an unknown throw into 500 INTERNAL without its message, and keeps serving', async () => {
    const err = await call('boom').catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 500, code: 'INTERNAL' });
    expect((err as Error).message).not.toContain('secret internal detail');
    await expect(call('after-boom')).resolves.toMatchObject({ status: 200 });
  });

  it('answers 422 ANSWER_TOO_LARGE, saying what to do, for an answer longer than the runtime can write', async () => {
    const err = await call('huge').catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 422, code: 'ANSWER_TOO_LARGE', message: expect.stringContaining('ask for less of it') });
    expect(await call('g1')).toEqual({ status: 200, body: { _id: 'g1', name: 'g' } });
  });

  it('answers 501 NOT_IMPLEMENTED for an operation without a handler', async () => {
    await expect(client().call('admin.getAccounts', {}, { caller: SYSTEM_CALLER })).rejects.toMatchObject({
      status: 501,
      code: 'NOT_IMPLEMENTED',
    });
  });

  it('validates input that did not come through the gateway', async () => {
    const err = await client()
      .callDynamic('admin.createGroup', { body: { group: {} } }, { caller: SYSTEM_CALLER })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(JSON.stringify((err as AppError).details)).toContain('body.group.name');
  });

  it('times out as 504 and reports no responders as 503', async () => {
    await expect(call('slow', 100)).rejects.toMatchObject({ status: 504, code: 'TIMEOUT' });
    await expect(client().call('studio.getTemplates', {}, { caller: SYSTEM_CALLER })).rejects.toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
    });
  });

  it('registers every catalog operation of the service for discovery', async () => {
    const [info] = await bus.discover('admin', 500);
    expect(info?.endpoints.map((e) => e.subject)).toContain(subjectOf(getOperation('admin.getAccounts')));
  });

  it('records metrics per operation and outcome', async () => {
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/nap_bus_requests_total\{operation="admin.getGroup",outcome="200"\} \d+/);
    expect(text).toMatch(/nap_bus_requests_total\{operation="admin.getGroup",outcome="500"\} \d+/);
  });

  it('carries the trace context: the SERVER span is a child of the CLIENT span', async () => {
    exporter.reset();
    await call('traced');
    const spans = exporter.getFinishedSpans();
    const server = spans.find((s) => s.kind === SpanKind.SERVER && s.name === 'admin.getGroup');
    const clientSpan = spans.find((s) => s.kind === SpanKind.CLIENT && s.name.startsWith('admin.getGroup'));
    expect(server).toBeDefined();
    expect(clientSpan).toBeDefined();
    expect(server?.spanContext().traceId).toBe(clientSpan?.spanContext().traceId);
    expect(server?.parentSpanContext?.spanId).toBe(clientSpan?.spanContext().spanId);
  });
});

// last in the file: a store's request for deadline scopes holds for the rest of the process
it("opens the request's deadline scope around handlers only once a store of the process bounds its calls by it", async () => {
  const bus = createMemoryBus();
  const service = await serve({
    bus,
    service: 'admin',
    version: '0.0.0-test',
    logger,
    handlers: {
      getGroup: async (input: { params: { groupId: string } }) => {
        await Promise.resolve(); // past the handler's first turn: the scope follows its awaits
        return { _id: input.params.groupId, name: String(currentDeadline() ?? 'none') };
      },
    },
  });
  try {
    const deadlineSeen = async () =>
      (await createBusClient({ bus }).call('admin.getGroup', { params: { groupId: 'g' } }, { caller: SYSTEM_CALLER })).body.name;
    // embedded stores only: no AsyncLocalStorage, whose hooks would run on every promise of the process
    expect(await deadlineSeen()).toBe('none');
    boundCallsByRequestDeadline();
    const seen = Number(await deadlineSeen());
    expect(seen).toBeGreaterThan(Date.now());
    expect(seen).toBeLessThanOrEqual(Date.now() + getOperation('admin.getGroup').timeoutMs);
  } finally {
    await service.stop();
    await bus.close();
  }
});
