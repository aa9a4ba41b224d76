import { CATALOG, HEADERS, SYSTEM_CALLER, getOperation, rpcSubject } from '@nap/contracts';
import type { OperationDef } from '@nap/contracts';
import { createMemoryBus, serve } from '@nap/bus';
import type { Bus } from '@nap/bus';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { createLogger } from '@nap/telemetry';

// Every operation of the catalog has a handler: none answers 501 NOT_IMPLEMENTED. Each is asked
// once on the bus with an empty request marked as validated, so that the service reaches its handler
// table instead of stopping at validation; what the handler then answers (404, 400, 500 for an empty
// input, or a success) does not matter here, only that one exists.
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});

afterAll(async () => {
  await platform.stop();
});

/** The operation's answer to an empty request, as text; undefined when no answer came. */
async function answerOf(bus: Bus, op: OperationDef): Promise<string | undefined> {
  const request = { caller: SYSTEM_CALLER, params: {}, query: {} };
  try {
    const reply = await bus.request(rpcSubject(op.service, op.name), Buffer.from(JSON.stringify(request)), {
      timeoutMs: 10_000,
      headers: { [HEADERS.validated]: '1', [HEADERS.deadline]: String(Date.now() + 10_000) },
    });
    return Buffer.from(reply.data).toString('utf8');
  } catch {
    return undefined;
  }
}

it('tells an operation without a handler by its answer', async () => {
  const bus = createMemoryBus();
  const bare = await serve({
    bus,
    service: 'orch-proxy',
    version: '0.0.1',
    handlers: {},
    logger: createLogger({ name: 'bare', level: 'silent' }),
  });
  try {
    expect(await answerOf(bus, getOperation('orch-proxy.restQuery'))).toContain('"NOT_IMPLEMENTED"');
  } finally {
    await bare.stop();
  }
});

it('has a handler for every operation of the catalog', async () => {
  const unbuilt: string[] = [];
  let answered = 0;
  for (const op of CATALOG) {
    const text = await answerOf(platform.bus, op);
    if (text === undefined) continue; // a timeout is an answer of another kind, not a missing handler
    answered += 1;
    if (text.includes('"NOT_IMPLEMENTED"')) unbuilt.push(op.id);
  }
  expect(unbuilt).toEqual([]);
  expect(answered).toBe(CATALOG.length);
}, 240_000);
