import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform({ config: { maxJsonDepth: 64, maxParamLength: 512 } });
  token = await platform.login();
});

afterAll(async () => {
  await platform.stop();
});

function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

async function raw(method: string, route: string, body: string) {
  const res = await fetch(`${platform.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, body: (await res.json()) as { code: string; message: string } };
}

describe('hostile input at the edge', () => {
  it('refuses a body nested deeper than the limit with 400 naming the limit, before the service sees it', async () => {
    const res = await raw('POST', '/mop/deviceObjects', `{"options":${nested(20_000)}}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('JSON_TOO_DEEP');
    expect(res.body.message).toContain('64');
  });

  it('answers a body that is not JSON, or starts with a byte order mark, alike however it is read (with a charset body-parser reads it)', async () => {
    const answers = async (body: string) =>
      Promise.all(
        ['application/json', 'application/json; charset=utf-8'].map(async (type) => {
          const res = await fetch(`${platform.url}/user-management/groups`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': type },
            body,
          });
          const answer = (await res.json()) as { code?: string; message?: string; name?: string };
          return { status: res.status, code: answer.code, message: answer.message };
        }),
      );
    const [plain, withCharset] = await answers('{"group": {"name": "broken",');
    expect(plain).toEqual({ status: 400, code: 'BAD_REQUEST', message: expect.stringMatching(/^The request body is not valid JSON: /) });
    expect(withCharset).toEqual(plain);
    const [bom, bomWithCharset] = await answers(`\ufeff${JSON.stringify({ group: { name: 'bom-read', description: 'x' } })}`);
    expect(bom?.status).toBe(200);
    expect(bomWithCharset?.status).toBe(409);
  });

  it('accepts a body exactly at the limit (brackets inside strings do not count)', async () => {
    const res = await raw(
      'POST',
      '/user-management/groups',
      JSON.stringify({ group: { name: `deep-${'{['.repeat(100)}`, description: nested(10) } }),
    );
    expect(res.status).toBe(200);
    const atLimit = await raw('POST', '/mop/deviceObjects', `{"options":${nested(63)}}`);
    expect(atLimit.body.code).not.toBe('JSON_TOO_DEEP');
  });

  it('refuses a query member named __proto__ (which the query parser would drop unseen), naming it, and keeps ordinary members', async () => {
    for (const query of ['__proto__=1', '__proto__[x]=1', 'equals[__proto__]=1', 'equals%5B__proto__%5D=1', 'a.__proto__=1']) {
      const res = await platform.http('GET', `/user-management/accounts?${query}`, { token });
      expect({ query, status: res.status, code: (res.body as { code: string }).code }).toEqual({
        query,
        status: 400,
        code: 'VALIDATION_FAILED',
      });
      expect((res.body as { details: { member: string }[] }).details[0]?.member).toMatch(/__proto__/);
    }
    expect((await platform.http('GET', '/user-management/accounts?equals[username]=admin&limit=5', { token })).status).toBe(200);
    expect((await platform.http('GET', '/user-management/accounts?equals[username]=__proto__x', { token })).status).toBe(200);
  });

  it('answers 400 for malformed percent-encoding in a path parameter', async () => {
    for (const bad of ['%ff', '%zz', '%E0%A4%A']) {
      const res = await platform.http('GET', `/user-management/groups/${bad}`, { token });
      expect(res.status).toBe(400);
      expect((res.body as { code: string }).code).toBe('BAD_REQUEST');
    }
  });

  it('answers 400 for a path parameter longer than the limit', async () => {
    const res = await platform.http('GET', `/user-management/groups/${'x'.repeat(6_000)}`, { token });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'PARAMETER_TOO_LONG' });
    const job = await platform.http('GET', `/operations-manager/jobs/${'j'.repeat(513)}`, { token });
    expect(job.status).toBe(400);
  });

  it('records a request whose body is refused once, however many ids or devices that body lists (no flood of the audit trail)', async () => {
    const jobIds = Array.from({ length: 5_000 }, (_, i) => `no-such-job-${i}`);
    const cancel = await fetch(`${platform.url}/operations-manager/jobs/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jobIds }),
    });
    expect(cancel.status).toBe(400);
    // exactly one record of the request (auditRecordOf throws on any other count), naming no job of the refused list
    const record = await platform.auditRecordOf(cancel, token);
    expect(record).toMatchObject({
      operation: 'workflow.cancelJobs',
      outcome: { status: 400, code: 'VALIDATION_FAILED' },
      target: { kind: 'job' },
    });
    expect(record.target).not.toHaveProperty('id');

    const devices = Array.from({ length: 2_000 }, (_, i) => `no-such-device-${i}`);
    const run = await fetch(`${platform.url}/mop/RunCommandDevices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ command: '', devices }),
    });
    expect(run.status).toBe(400);
    expect(await platform.auditRecordOf(run, token)).toMatchObject({ operation: 'mop.RunCommandDevices', outcome: { status: 400 } });

    // a body that holds is recorded per job it names, as before
    const two = await fetch(`${platform.url}/operations-manager/jobs/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jobIds: ['no-such-job-a', 'no-such-job-b'] }),
    });
    const requestId = two.headers.get('x-request-id') ?? '';
    const records = await platform.http('GET', `/audit?equals[requestId]=${requestId}`, { token });
    expect((records.body as { results: { target: { id?: string } }[] }).results.map((r) => r.target.id).sort()).toEqual([
      'no-such-job-a',
      'no-such-job-b',
    ]);
  });

  it('answers long values that reach the store without a 500', async () => {
    // a username, a unique key of the store, is bounded before it gets there (256 characters, as a group name)
    const created = await platform.http('POST', '/user-management/accounts', {
      token,
      body: { account: { username: 'n'.repeat(5_000), password: 'long-values-password-1' } },
    });
    expect(created.status).toBe(400);
    expect(created.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.account.username' }] });
    const read = await platform.http('GET', `/user-management/groups/${'€'.repeat(512)}`, { token });
    expect([400, 404]).toContain(read.status);
  });
});
