import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually } from '@nap/testing';

/**
 * The Last-Event-ID of GET /operations-manager/events tried with what a careless or hostile client
 * sends: only a decimal whole number a stream can reach resumes; anything else is 400 naming the
 * header, and the error quotes only the start of a long value.
 */
let platform: TestPlatform;
const MAX_STREAMS = 3;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform({ gateway: { maxStreamsPerCaller: MAX_STREAMS } });
  token = await platform.login();
});

afterAll(async () => {
  await platform?.stop();
});

/** The status of the stream resumed at `id`, and the error body when it is refused (the stream is left at once). */
async function resume(id: string): Promise<{ status: number; body?: { code?: string; message?: string; details?: unknown } }> {
  const abort = new AbortController();
  const res = await fetch(`${platform.url}/operations-manager/events`, {
    headers: { authorization: `Bearer ${token}`, 'last-event-id': id },
    signal: abort.signal,
  });
  if (res.status === 200) {
    abort.abort();
    return { status: 200 };
  }
  return { status: res.status, body: (await res.json()) as { code?: string; message?: string } };
}

it.each([
  ['hexadecimal', '0x10'],
  ['binary', '0b11'],
  ['an exponent', '1e3'],
  ['a sign', '+5'],
  ['negative', '-1'],
  ['fractional', '1.5'],
  ['2^53 + 1', '9007199254740993'],
  ['2^53 - 1 (no event can follow it)', String(Number.MAX_SAFE_INTEGER)],
  ['huge', '9'.repeat(400)],
])('refuses a Last-Event-ID that is %s, naming the header', async (_, id) => {
  const res = await resume(id);
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'headers.last-event-id' }] });
});

it('quotes only the start of a long Last-Event-ID in its error', async () => {
  const res = await resume(`x${'9'.repeat(8000)}`);
  expect(res.status).toBe(400);
  expect(res.body?.message?.length).toBeLessThan(300);
});

it.each([
  ['0', '0'],
  ['a number past the end of the stream', '123456789'],
  ['the largest it takes', String(Number.MAX_SAFE_INTEGER - 1)],
  ['with blanks around it', ' 5 '],
  ['empty (new events)', ''],
])('resumes from a Last-Event-ID that is %s', async (_, id) => {
  expect((await resume(id)).status).toBe(200);
});

it('refuses a caller more open streams than it may have (429 TOO_MANY_STREAMS, either stream), and opens one again once one closes', async () => {
  const open = (path: string, abort: AbortController) =>
    fetch(`${platform.url}${path}`, { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
  const aborts = Array.from({ length: MAX_STREAMS }, () => new AbortController());
  try {
    for (const abort of aborts) expect((await open('/operations-manager/events', abort)).status).toBe(200);
    for (const path of ['/operations-manager/events', '/operations-manager/jobs/any-job/events']) {
      const refused = await open(path, new AbortController());
      expect({ path, status: refused.status }).toEqual({ path, status: 429 });
      expect(await refused.json()).toMatchObject({ code: 'TOO_MANY_STREAMS', details: { limit: MAX_STREAMS } });
    }
    aborts[0]?.abort();
    const again = new AbortController();
    aborts.push(again);
    const status = await eventually('a stream opens once one closed', async () => {
      const res = await open('/operations-manager/events', again);
      if (res.status !== 429) return res.status;
      await res.body?.cancel();
      return false;
    });
    expect(status).toBe(200);
  } finally {
    for (const abort of aborts) abort.abort();
  }
});
