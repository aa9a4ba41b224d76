import { CATALOG, SERVICE_NAMES, getOperation } from '@nap/contracts';
import { createMemoryBus, serve } from '@nap/bus';
import { createLogger } from '@nap/telemetry';
import type { RequestParts } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { CASES, without, withExtra } from '../../contracts/test/operation-examples';

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform({ config: { bodyLimitBytes: 64 * 1024, documentBodyLimitBytes: 256 * 1024 } });
  token = await platform.login();
});

afterAll(async () => {
  await platform.stop();
});

/** Flattens a query object the way clients send it: `equals[status]=running`. */
function queryString(query: Record<string, unknown> | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== null && typeof value === 'object') {
      for (const [inner, v] of Object.entries(value as Record<string, unknown>)) params.append(`${key}[${inner}]`, String(v));
    } else if (value !== undefined) {
      params.append(key, String(value));
    }
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

async function send(opId: string, parts: RequestParts) {
  const op = getOperation(opId);
  if (!op.http) throw new Error(`${opId} has no route`);
  const params = (parts.params ?? {}) as Record<string, string>;
  const path = op.http.path.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => encodeURIComponent(params[name] ?? `test-${name}`));
  return platform.http(op.http.method, `${path}${queryString(parts.query as Record<string, unknown> | undefined)}`, {
    token,
    ...(parts.body !== undefined ? { body: parts.body } : {}),
  });
}

type ErrorBody = { status: string; code: string; message: string; details?: { member: string }[]; requestId: string };

const httpCases = CASES.filter((c) => getOperation(c.op).http !== undefined);

describe.each(httpCases.map((c) => [c.op, c] as const))('%s over HTTP', (_op, c) => {
  it('lets the valid example through validation', async () => {
    const res = await send(c.op, c.valid[0] as RequestParts);
    expect(res.status).not.toBe(400);
    expect([401, 403]).not.toContain(res.status);
  });

  if (c.required.filter((m) => !m.startsWith('params.')).length > 0) {
    it.each(c.required.filter((m) => !m.startsWith('params.')))('answers 400 naming %s when it is left out', async (member) => {
      const res = await send(c.op, without(c.valid[0] as RequestParts, member));
      expect(res.status).toBe(400);
      const body = res.body as ErrorBody;
      expect(body).toMatchObject({ status: 'error', code: 'VALIDATION_FAILED', requestId: expect.any(String) });
      expect(body.details?.map((d) => d.member)).toContain(member);
    });
  }

  // an extra path parameter cannot be written in a URL; the contracts test covers it
  const closedOverHttp = c.closed.filter((object) => object !== 'params');
  if (closedOverHttp.length > 0) {
    it.each(closedOverHttp)('answers 400 naming the extra member in %s', async (object) => {
      const res = await send(c.op, withExtra(c.valid[0] as RequestParts, object));
      expect(res.status).toBe(400);
      expect((res.body as ErrorBody).details?.map((d) => d.member)).toContain(`${object}.extra`);
    });
  }
});

describe('the gateway', () => {
  it('answers 413 for a body over the limit', async () => {
    const res = await platform.http('POST', '/mop/diff', { token, body: { value_a: 'x'.repeat(100 * 1024), value_b: '' } });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: `The request body is larger than the limit of ${64 * 1024} bytes of this route`,
    });
  });

  it("reads the bodies of the operations that take whole documents up to their own limit (catalog bodyLimit 'document')", async () => {
    const documentOps = CATALOG.filter((op) => op.bodyLimit === 'document').map((op) => `${op.http?.method} ${op.http?.path}`);
    expect(documentOps).toEqual(['POST /integration-models', 'PUT /integration-models', 'PUT /integration-models/validation']);
    // 100 KiB: over the default limit, under the document limit; the service answers, whatever it thinks of the document
    const model = { openapi: '3.0.3', info: { title: 'Padded', version: '1', description: 'x'.repeat(100 * 1024) }, paths: {} };
    const read = await platform.http('PUT', '/integration-models/validation', { token, body: { model } });
    expect(read.status).toBe(200);
    const over = await platform.http('PUT', '/integration-models/validation', {
      token,
      body: { model: { ...model, info: { ...model.info, description: 'x'.repeat(300 * 1024) } } },
    });
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ message: `The request body is larger than the limit of ${256 * 1024} bytes of this route` });
  });

  it('answers 415 for a body that is not JSON', async () => {
    // the answer for a content type is remembered: asked again, and for an accepted type, it answers the same
    for (const type of ['text/plain', 'text/plain', 'application/x-www-form-urlencoded']) {
      const res = await platform.http('POST', '/user-management/groups', { token, body: 'name=x', headers: { 'content-type': type } });
      expect(res.status).toBe(415);
      expect(res.body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    }
    const json = await platform.http('POST', '/user-management/groups', {
      token,
      body: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect(json.status).toBe(400);
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await platform.http('POST', '/user-management/groups', {
      token,
      body: '{"group":',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('answers 501 NOT_IMPLEMENTED for an operation that is not built yet', async () => {
    // a replica of orch-proxy that registers the catalog's operations with no handlers: what a
    // service answers for an operation it has not built
    const bus = createMemoryBus();
    const bare = await serve({
      bus,
      service: 'orch-proxy',
      version: '0.0.1',
      handlers: {},
      logger: createLogger({ name: 'bare', level: 'silent' }),
    });
    const partial = await startTestPlatform({ bus, services: SERVICE_NAMES.filter((name) => name !== 'orch-proxy') });
    try {
      const res = await partial.http('POST', '/orch_manager/restQuery/nso', {
        token: await partial.login(),
        body: { params: { path: '/restconf/data', accept: 'application/yang-data+json' } },
      });
      expect(res.status).toBe(501);
      expect(res.body).toMatchObject({
        status: 'error',
        code: 'NOT_IMPLEMENTED',
        message: expect.stringContaining('orch-proxy.restQuery'),
      });
    } finally {
      await partial.stop();
      await bare.stop();
    }
  });

  it('answers 404 as JSON for an unknown route, after authentication', async () => {
    expect((await platform.http('GET', '/no/such/route', { token })).body).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('answers 405 with the allowed methods for a known path and another method', async () => {
    const res = await platform.http('DELETE', '/user-management/roles', { token });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(res.body).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
  });

  it('answers HEAD wherever GET is served: the same status and headers, no body', async () => {
    const url = `${platform.url}/user-management/roles`;
    const [get, head] = await Promise.all([
      fetch(url, { headers: { authorization: `Bearer ${token}` } }),
      fetch(url, { method: 'HEAD', headers: { authorization: `Bearer ${token}` } }),
    ]);
    const body = await get.text();
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(await head.text()).toBe('');
    // refused as GET is: no credentials, no route
    expect((await fetch(url, { method: 'HEAD' })).status).toBe(401);
    expect((await fetch(`${platform.url}/no/such/route`, { method: 'HEAD', headers: { authorization: `Bearer ${token}` } })).status).toBe(
      404,
    );
  });

  it('decodes path parameters', async () => {
    const res = await platform.http('GET', `/user-management/groups/${encodeURIComponent('no such/group')}`, { token });
    expect(res.status).toBe(404);
    expect((res.body as { message: string }).message).toContain('no such/group');
  });

  it('echoes a request id, or makes one', async () => {
    const given = await platform.http('GET', '/whoami', { token, headers: { 'x-request-id': 'trace-me-1' } });
    expect(given.headers.get('x-request-id')).toBe('trace-me-1');
    const made = await platform.http('GET', '/whoami', { token });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves the OpenAPI document with every catalog route, and the docs page from local assets', async () => {
    const res = await platform.http('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body as { openapi: string; paths: Record<string, Record<string, { operationId: string }>> };
    expect(doc.openapi).toBe('3.1.0');
    for (const op of CATALOG) {
      if (!op.http) continue;
      const path = op.http.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      expect(doc.paths[path]?.[op.http.method.toLowerCase()]?.operationId).toBe(op.id);
    }
    const page = await platform.http('GET', '/docs');
    expect(page.status).toBe(200);
    expect(String(page.body)).toContain('swagger-ui-bundle.js');
    expect(String(page.body)).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
    const bundle = await fetch(`${platform.url}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    // the whole bundle (about 1.5 MB), read to the end: unread, it held its connection open after the suite
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(500_000);
  });

  it('answers the probes without credentials', async () => {
    expect((await platform.http('GET', '/health/live')).status).toBe(200);
    const ready = await platform.http('GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', missing: [] });
  });
});
