import { startNsoPeer } from '@nap/lab';
import type { NsoPeer } from '@nap/lab';

/** The lab's NSO peer on its own: what NSO answers that the orchestrator routes rely on, and the lab's controls. */

let peer: NsoPeer;
let basic: string;

beforeAll(async () => {
  peer = await startNsoPeer();
  basic = `Basic ${Buffer.from(`${peer.user}:${peer.password}`).toString('base64')}`;
});

afterAll(async () => {
  await peer.close();
});

async function http(
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const headers: Record<string, string> = {
    authorization: basic,
    accept: 'application/yang-data+json',
    ...(options.body !== undefined ? { 'content-type': 'application/yang-data+json' } : {}),
    ...options.headers,
  };
  const res = await fetch(`${peer.url}${path}`, {
    method,
    headers,
    ...(options.body !== undefined ? { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

async function rpc(method: string, params: unknown, cookie?: string): Promise<{ body: Record<string, unknown>; setCookie: string | null }> {
  const res = await fetch(`${peer.url}/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: basic, ...(cookie ? { cookie } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  expect(res.status).toBe(200);
  return { body: (await res.json()) as Record<string, unknown>, setCookie: res.headers.get('set-cookie') };
}

describe('RESTCONF', () => {
  it('asks for Basic credentials', async () => {
    const res = await http('GET', '/restconf/data', { headers: { authorization: 'Basic bm86bm8=' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="restconf"');
    expect(res.body).toEqual({
      'ietf-restconf:errors': { error: [{ 'error-type': 'protocol', 'error-tag': 'access-denied', 'error-message': 'access denied' }] },
    });
  });

  it('answers the datastore with depth, and names a leaf by its module', async () => {
    expect((await http('GET', '/restconf/data?depth=1')).body).toEqual({ 'ietf-restconf:data': { 'tailf-ncs:devices': {} } });
    expect((await http('GET', '/restconf/data/tailf-ncs:devices/device=C-IOS1/address')).body).toEqual({
      'tailf-ncs:address': '127.0.1.11',
    });
    // a child of another module must be qualified in a RESTCONF path
    expect((await http('GET', '/restconf/data/tailf-ncs:devices/device=C-IOS1/config/hostname')).status).toBe(404);
  });

  it('creates with POST answering Location, and answers JSON only (406 for XML, 415 for an XML body)', async () => {
    const created = await http('POST', '/restconf/data/tailf-ncs:devices/device=C-IOS2/config/tailf-ned-cisco-ios:interface', {
      body: { 'tailf-ned-cisco-ios:GigabitEthernet': [{ name: '0/9', description: 'new' }] },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(
      `${peer.url}/restconf/data/tailf-ncs:devices/device=C-IOS2/config/tailf-ned-cisco-ios:interface/GigabitEthernet=0%2F9`,
    );
    expect((await http('GET', '/restconf/data/tailf-ncs:devices', { headers: { accept: 'application/yang-data+xml' } })).status).toBe(406);
    expect(
      (
        await http('PATCH', '/restconf/data/tailf-ncs:devices/device=C-IOS2/config', {
          body: '<config/>',
          headers: { 'content-type': 'application/yang-data+xml' },
        })
      ).status,
    ).toBe(415);
  });

  it('refuses a PUT whose key differs from the path, and no-overwrite with no-out-of-sync-check', async () => {
    const put = await http('PUT', '/restconf/data/tailf-ncs:devices/device=C-IOS2/config/tailf-ned-cisco-ios:interface/Loopback=7', {
      body: { 'tailf-ned-cisco-ios:Loopback': [{ name: '8' }] },
    });
    expect(put.status).toBe(400);
    const both = await http('PATCH', '/restconf/data/tailf-ncs:devices/device=C-IOS2/config?no-overwrite&no-out-of-sync-check', {
      body: { 'tailf-ncs:config': {} },
    });
    expect(both.status).toBe(400);
  });

  it('answers a dry run in xml, and check-sync for every device', async () => {
    const dry = await http('PATCH', '/restconf/data/tailf-ncs:devices/device=ce0/config?dry-run=xml', {
      body: { 'tailf-ncs:config': { 'tailf-ned-cisco-ios:hostname': 'ce0-new' } },
    });
    expect(dry.body).toEqual({
      'dry-run-result': {
        'result-xml': {
          'local-node': {
            data: '<devices>\n  <device><name>ce0</name>\n    <config>\n      <hostname>ce0-new</hostname>\n    </config>\n  </device>\n</devices>',
          },
        },
      },
    });
    peer.setOutOfSync('ce0', true);
    const all = await http('POST', '/restconf/data/tailf-ncs:devices/check-sync');
    peer.setOutOfSync('ce0', false);
    expect(all.body).toEqual({
      'tailf-ncs:output': {
        'sync-result': [
          { device: 'C-IOS1', result: 'in-sync' },
          { device: 'C-IOS2', result: 'in-sync' },
          expect.objectContaining({ device: 'ce0', result: 'out-of-sync' }),
        ],
      },
    });
  });
});

describe('JSON-RPC', () => {
  it('needs a session: login sets the sessionid cookie; without it NSO answers session.missing_sessionid', async () => {
    expect((await rpc('new_trans', {})).body).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32000, type: 'session.missing_sessionid', message: 'Missing sessionid' },
    });
    expect((await rpc('login', { user: peer.user, passwd: 'wrong' })).body).toMatchObject({ error: { type: 'rpc.method.failed' } });
    expect((await rpc('login', { foo: 'joe' })).body).toMatchObject({
      error: { code: -32602, type: 'rpc.method.unexpected_params', data: { param: 'foo' } },
    });
    const login = await rpc('login', { user: peer.user, passwd: peer.password });
    expect(login.body).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    // newer NSO names the session cookie after the port of its web server
    expect(peer.sessionCookie).toBe(`sessionid_${peer.port}`);
    const cookie = /sessionid_\d+=[^;]+/.exec(login.setCookie ?? '')?.[0] ?? '';
    expect(login.setCookie).toMatch(new RegExp(`^sessionid_${peer.port}=sess\\d+; path=/; HttpOnly$`));
    expect((await rpc('frobnicate', {}, cookie)).body).toMatchObject({ error: { code: -32601, type: 'rpc.method.not_found' } });
    const th = ((await rpc('new_trans', { mode: 'read' }, cookie)).body.result as { th: number }).th;
    expect(
      (await rpc('get_value', { th, path: '/ncs:devices/device{C-IOS1}/config/ios:interface/Loopback{100}/description' }, cookie)).body,
    ).toMatchObject({ result: { value: 'customer-A' } });
    expect(
      (await rpc('set_value', { th, path: '/ncs:devices/device{C-IOS1}/config/ios:hostname', value: 'x' }, cookie)).body,
    ).toMatchObject({ error: { type: 'rpc.method.failed', data: { reason: 'the transaction is read-only' } } });
    expect((await rpc('commit', { th }, cookie)).body).toMatchObject({
      error: { type: 'rpc.method.failed', data: { reason: 'commit must be preceded by validate_commit' } },
    });
    expect((await rpc('validate_commit', { th, flags: ['dry-run=yaml'] }, cookie)).body).toMatchObject({
      error: { type: 'rpc.method.unknown_params_value', data: { param: 'flags' } },
    });
    expect((await rpc('delete_trans', { th }, cookie)).body).toMatchObject({ result: {} });
    expect((await rpc('logout', {}, cookie)).body).toMatchObject({ result: {} });
    expect((await rpc('new_trans', {}, cookie)).body).toMatchObject({ error: { type: 'session.invalid_sessionid' } });
    expect({ sessions: peer.sessions, transactions: peer.transactions }).toEqual({ sessions: 0, transactions: 0 });
  });

  it('refuses what NSO refuses: a login without user and passwd (Basic credentials do not log in), a call without the session cookie', async () => {
    const failed = { jsonrpc: '2.0', id: 7, error: { code: -32000, type: 'rpc.method.failed', message: 'Method failed' } };
    // rpc() sends the right Basic credentials on every request: NSO's login reads its params only
    expect((await rpc('login', {})).body).toEqual(failed);
    expect((await rpc('login', undefined)).body).toEqual(failed);
    expect((await rpc('login', { user: peer.user })).body).toEqual(failed);
    expect((await rpc('login', { passwd: peer.password })).body).toEqual(failed);
    expect(peer.sessions).toBe(0);
    const login = await rpc('login', { user: peer.user, passwd: peer.password });
    const value = /=([^;]+)/.exec(login.setCookie ?? '')?.[1] ?? '';
    // the session's value under another name than the peer's is no session
    expect((await rpc('new_trans', {}, `sessionid=${value}`)).body).toMatchObject({ error: { type: 'session.missing_sessionid' } });
    expect((await rpc('new_trans', {}, `x${peer.sessionCookie}=${value}`)).body).toMatchObject({
      error: { type: 'session.missing_sessionid' },
    });
    expect((await rpc('new_trans', {}, `${peer.sessionCookie}=sess1`)).body).toMatchObject({
      error: { type: 'session.invalid_sessionid' },
    });
    expect((await rpc('logout', {}, `other=1; ${peer.sessionCookie}=${value}`)).body).toMatchObject({ result: {} });
    expect(peer.sessions).toBe(0);
  });

  it('sets the older `sessionid` cookie when asked to behave as an older NSO release', async () => {
    const older = await startNsoPeer({ sessionCookie: 'sessionid' });
    try {
      const res = await fetch(`${older.url}/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'login', params: { user: older.user, passwd: older.password } }),
      });
      expect(res.headers.get('set-cookie')).toMatch(/^sessionid=sess\d+; path=\/; HttpOnly$/);
      expect(older.sessionCookie).toBe('sessionid');
    } finally {
      await older.close();
    }
  });

  it('answers a body that is not JSON with a parse error', async () => {
    const res = await fetch(`${peer.url}/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, type: 'rpc.request.parse_error', message: 'Parse error' },
    });
  });
});
