import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startGatewayPlatform } from './platform';
import type { GatewayPlatform } from './platform';

let gw: GatewayPlatform;
let api: http.Server;
let origin: string;
const seen: string[] = [];

beforeAll(async () => {
  gw = await startGatewayPlatform();
  api = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    if (req.url === '/sub/api/echo') {
      // a device that repeats the credentials it was sent in its refusal
      const sent = req.headers.authorization ?? '';
      const decoded = Buffer.from(sent.replace(/^Basic /, ''), 'base64').toString('utf8');
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': `Basic realm="you sent ${sent}"` });
      res.end(JSON.stringify({ error: `user ${decoded} with token ${String(req.headers['x-auth-token'])} refused` }));
      return;
    }
    if (req.url === '/sub/api/out') {
      res.writeHead(302, { location: '/etc/passwd' });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`you asked ${req.url ?? ''}`);
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  expect(
    (await gw.http('POST', '/gw/createInventoryDevice', { name: 'web1', variables: { gw_http_base_url: `${origin}/sub/api/` } })).status,
  ).toBe(200);
});

afterAll(async () => {
  await new Promise((resolve) => api?.close(resolve));
  await gw?.stop();
});

function send(body: Record<string, unknown>) {
  return gw.http('POST', '/gw/http_requests/request/execute', { host: 'web1', method: 'GET', ...body });
}

function membersOf(body: unknown): string[] {
  return ((body as { details?: { member: string }[] }).details ?? []).map((d) => d.member);
}

describe('POST /gw/http_requests/request/execute', () => {
  it('refuses a header that cannot be sent with 400 naming body.headers.<name>, sending nothing', async () => {
    const before = seen.length;
    const crlf = await send({ endpoint: 'x', headers: { X: 'a\r\nInjected: 1' } });
    expect(crlf.status).toBe(400);
    expect(crlf.body).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(membersOf(crlf.body)).toEqual(['body.headers.X']);
    const name = await send({ endpoint: 'x', headers: { 'Bad Header': 'v', 'X-Fine': 'ok' } });
    expect(name.status).toBe(400);
    expect(membersOf(name.body)).toEqual(['body.headers.Bad Header']);
    const control = await send({ endpoint: 'x', headers: { 'X-Nul': 'a\u0000b' } });
    expect(control.status).toBe(400);
    expect(membersOf(control.body)).toEqual(['body.headers.X-Nul']);
    // where the request goes and how its body is framed are the platform's
    const own = await send({ endpoint: 'x', headers: { Host: 'intranet.example', 'Transfer-Encoding': 'chunked', 'content-length': '0' } });
    expect(own.status).toBe(400);
    expect(membersOf(own.body)).toEqual(['body.headers.Host', 'body.headers.Transfer-Encoding', 'body.headers.content-length']);
    expect(seen.length).toBe(before);
    // a valid one still goes
    expect(await send({ endpoint: 'x', headers: { 'X-Fine': 'ok' } })).toMatchObject({ status: 200, body: { status_code: 200 } });
  });

  it('keeps requests below gw_http_base_url: dot segments, encoded or not, are refused with 400 naming body.endpoint', async () => {
    expect(await send({ endpoint: 'v1/items' })).toMatchObject({ status: 200, body: { text: 'you asked /sub/api/v1/items' } });
    const before = seen.length;
    for (const endpoint of [
      '../../etc',
      '/../x',
      '%2e%2e/%2e%2e/',
      '.%2E/x',
      'a/./b',
      '..%2f..%2fetc',
      '..\\..\\etc',
      `${origin}/etc/passwd`,
      `${origin}/sub/api/../../etc`,
      `${origin}/sub/apix`,
    ]) {
      const res = await send({ endpoint });
      expect({ endpoint, status: res.status, members: membersOf(res.body) }).toEqual({ endpoint, status: 400, members: ['body.endpoint'] });
    }
    expect(seen.length).toBe(before);
    // an absolute URL below the base is fine, and so is the base itself
    expect(await send({ endpoint: `${origin}/sub/api/ok?x=1` })).toMatchObject({
      status: 200,
      body: { text: 'you asked /sub/api/ok?x=1' },
    });
    expect(await send({ endpoint: '' })).toMatchObject({ status: 200, body: { text: 'you asked /sub/api/' } });
    // another origin is still 422
    expect(await send({ endpoint: 'http://198.51.100.1/sub/api/x' })).toMatchObject({
      status: 422,
      body: { code: 'DEVICE_HTTP_NOT_CONFIGURED' },
    });
  });

  it('never sends to a link-local or unspecified address (cloud metadata), whoever wrote the device', async () => {
    for (const [name, base] of [
      ['metadata', 'http://169.254.169.254/latest/'],
      ['metadata6', 'http://[fd00:ec2::254]/latest/'],
      ['mapped', 'http://[::ffff:169.254.169.254]/'],
      ['unspecified', 'http://0.0.0.0:8080/'],
    ] as const) {
      expect((await gw.http('POST', '/gw/createInventoryDevice', { name, variables: { gw_http_base_url: base } })).status).toBe(200);
      const res = await gw.http('POST', '/gw/http_requests/request/execute', { host: name, method: 'GET', endpoint: 'x' });
      expect({ name, status: res.status, body: res.body }).toMatchObject({
        name,
        status: 422,
        body: { code: 'DEVICE_HTTP_NOT_CONFIGURED', message: expect.stringContaining('link-local and unspecified addresses') },
      });
    }
  });

  it("masks the device's own credentials (gw_http_password, a secret gw_http_headers value) in an answer that echoes them", async () => {
    const password = 'Dev1ce pa55/w@rd+"x';
    const deviceToken = 'tok-3f9a77c2e1';
    const created = await gw.http('POST', '/gw/createInventoryDevice', {
      name: 'web-echo',
      variables: {
        gw_http_base_url: `${origin}/sub/api/`,
        gw_http_username: 'dev-user',
        gw_http_password: password,
        gw_http_headers: { 'X-Auth-Token': deviceToken },
      },
    });
    expect(created.status).toBe(200);
    const res = await gw.http('POST', '/gw/http_requests/request/execute', { host: 'web-echo', method: 'GET', endpoint: 'echo' });
    expect(res).toMatchObject({
      status: 200,
      body: { status_code: 401, json: { error: 'user dev-user:******** with token ******** refused' } },
    });
    const text = JSON.stringify(res.body);
    const forms = {
      plain: password,
      json: JSON.stringify(password).slice(1, -1),
      basic: Buffer.from(`dev-user:${password}`).toString('base64'),
      token: deviceToken,
    };
    expect(Object.entries(forms).filter(([, form]) => text.includes(form) || gw.logs().includes(form))).toEqual([]);
  });

  it('does not follow a redirect out of the base path: the device answer is returned as it is', async () => {
    const res = await send({ endpoint: 'out' });
    expect(res).toMatchObject({ status: 200, body: { status_code: 302, headers: { location: '/etc/passwd' } } });
    expect(seen.at(-1)).toBe('/sub/api/out');
  });
});
