import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

/**
 * The Last-Event-ID of GET /operations-manager/events tried with what a careless or hostile client
 * sends: only a decimal whole number a stream can reach resumes; anything else is 400 naming the
 * header, and the error quotes only the start of a long value.
 */
let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
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
