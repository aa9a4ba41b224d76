import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SECRET_MASK } from '@nap/contracts';
import { startNetconfLab } from '@nap/lab';
import type { NetconfLab } from '@nap/lab';
import { startGatewayPlatform } from './platform';
import type { GatewayPlatform } from './platform';

// netconfd answers through sshd, PAM and its own datastore writes: on a loaded 2-core CI machine a
// lock-edit-commit round trip can take far longer than jest's default 30 s, which is no failure of ours.
jest.setTimeout(90_000);

// Starting the lab may install openssh-server and netconfd on a clean machine (apt-get).
const SETUP_TIMEOUT_MS = 10 * 60_000;
const SYSTEM_NS = 'urn:ietf:params:xml:ns:yang:ietf-system';

let gw: GatewayPlatform;
let lab: NetconfLab;
let api: http.Server;
let apiUrl: string;
const seen: { method: string; url: string; authorization?: string; body: string }[] = [];

beforeAll(async () => {
  gw = await startGatewayPlatform();
  lab = await startNetconfLab();
  api = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        body,
        ...(req.headers.authorization === undefined ? {} : { authorization: req.headers.authorization }),
      });
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/api/v1/items') {
        res.writeHead(200, { 'content-type': 'application/json', 'x-device': 'lab' });
        res.end(JSON.stringify({ items: ['a', 'b'], query: Object.fromEntries(url.searchParams) }));
      } else if (url.pathname === '/api/v1/echo') {
        res.writeHead(201, { 'content-type': req.headers['content-type'] ?? 'text/plain' });
        res.end(body);
      } else if (url.pathname === '/api/v1/moved') {
        res.writeHead(302, { location: '/api/v1/items?from=redirect' });
        res.end();
      } else if (url.pathname === '/api/v1/elsewhere') {
        res.writeHead(302, { location: 'http://203.0.113.9/steal' });
        res.end();
      } else {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('no such thing');
      }
    });
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}/api/v1`;
  const devices: [string, Record<string, unknown>][] = [
    [
      'nc1',
      {
        gw_host: lab.sshd.host,
        gw_netconf_port: lab.sshd.port,
        gw_port: lab.sshd.port,
        gw_user: lab.sshd.username,
        gw_password: lab.sshd.password,
        gw_network_os: 'linux',
      },
    ],
    ['web1', { gw_host: '127.0.0.1', gw_http_base_url: apiUrl, gw_http_username: 'api-user', gw_http_password: 'api-Secret-9' }],
    ['nohttp', { gw_host: '127.0.0.1' }],
  ];
  for (const [name, variables] of devices)
    expect((await gw.http('POST', '/gw/createInventoryDevice', { name, variables })).status).toBe(200);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await gw?.stop();
  await lab?.stop();
  await new Promise((resolve) => api?.close(resolve));
});

describe('NETCONF over the inventory device netconf port', () => {
  it('get_config answers the running datastore', async () => {
    const res = await gw.http('POST', '/gw/netconf/get_config/execute', { host: 'nc1' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'success', host: 'nc1', source: 'running' });
    expect((res.body as { data: string }).data).toContain('<nacm xmlns="urn:ietf:params:xml:ns:yang:ietf-netconf-acm">');
  });

  it('set_config edits the candidate under a lock and commits; get_config with a filter reads it back', async () => {
    const set = await gw.http('POST', '/gw/netconf/set_config/execute', {
      host: 'nc1',
      config: `<system xmlns="${SYSTEM_NS}"><contact>gw@nap.example</contact></system>`,
      default_operation: 'merge',
      lock: true,
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ status: 'success', target: 'candidate', committed: true });
    const got = await gw.http('POST', '/gw/netconf/get_config/execute', { host: 'nc1', filter: `<system xmlns="${SYSTEM_NS}"/>` });
    expect((got.body as { data: string }).data).toContain('<contact>gw@nap.example</contact>');
    expect((got.body as { data: string }).data).not.toContain('nacm');
  });

  it('exec_rpc runs an operation (or a whole <rpc>) and answers the reply', async () => {
    const res = await gw.http('POST', '/gw/netconf/exec_rpc/execute', {
      host: 'nc1',
      rpc: '<rpc xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><get><filter type="subtree"><netconf-state xmlns="urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring"><sessions/></netconf-state></filter></get></rpc>',
    });
    expect(res.status).toBe(200);
    expect((res.body as { data: string }).data).toContain('<session-id>');
    expect((res.body as { reply: string }).reply).toContain('rpc-reply');
  });

  it('turns an rpc-error into 502 DEVICE_COMMAND_FAILED with the errors', async () => {
    const res = await gw.http('POST', '/gw/netconf/exec_rpc/execute', { host: 'nc1', rpc: '<frobnicate xmlns="urn:example:nap"/>' });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({
      code: 'DEVICE_COMMAND_FAILED',
      details: { operation: 'frobnicate', errors: [{ tag: 'unknown-namespace' }] },
    });
  });

  it('refuses a filter, configuration or operation that would leave its place in the RPC (more operations, or a message of its own), naming the member', async () => {
    const contact = `<system xmlns="${SYSTEM_NS}"><contact>injected</contact></system>`;
    const cases: [string, Record<string, unknown>, string][] = [
      [
        'get_config',
        {
          filter: `<system xmlns="${SYSTEM_NS}"/></filter></get-config><edit-config><target><running/></target><config>${contact}</config></edit-config><get-config><source><running/></source><filter>`,
        },
        'body.filter',
      ],
      ['get_config', { filter: `<system xmlns="${SYSTEM_NS}" a="]]>]]>"/>` }, 'body.filter'],
      [
        'set_config',
        {
          config: `${contact}</config></edit-config></rpc>]]>]]><rpc message-id="9"><delete-config><target><startup/></target></delete-config>`,
        },
        'body.config',
      ],
      [
        'set_config',
        { config: `<config>${contact}</config></edit-config><kill-session><session-id>1</session-id></kill-session><edit-config><config>` },
        'body.config',
      ],
      ['exec_rpc', { rpc: '<get/><!-- ]]>]]> --><kill-session><session-id>1</session-id></kill-session>' }, 'body.rpc'],
    ];
    for (const [operation, body, member] of cases) {
      const res = await gw.http('POST', `/gw/netconf/${operation}/execute`, { host: 'nc1', ...body });
      expect({ operation, member, status: res.status }).toEqual({ operation, member, status: 400 });
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member }] });
    }
    const got = await gw.http('POST', '/gw/netconf/get_config/execute', { host: 'nc1', filter: `<system xmlns="${SYSTEM_NS}"/>` });
    expect((got.body as { data: string }).data).not.toContain('injected');
  });

  it('refuses a wrong password with 502 DEVICE_SSH_AUTH_FAILED', async () => {
    const res = await gw.http('POST', '/gw/netconf/get_config/execute', { host: 'nc1', connection_options: { password: 'not-it' } });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'DEVICE_SSH_AUTH_FAILED' });
  });
});

describe("the device's own password repeated by the device", () => {
  it('is masked in NETCONF data and in the output and errors of commands (a Linux device that echoes it), and kept out of the log', async () => {
    const password = lab.sshd.password;
    const contact = (text: string) => `<system xmlns="${SYSTEM_NS}"><contact>${text}</contact></system>`;
    const set = await gw.http('POST', '/gw/netconf/set_config/execute', { host: 'nc1', config: contact(`ops ${password}`), lock: true });
    expect(set.body).toMatchObject({ status: 'success', committed: true });
    const got = await gw.http('POST', '/gw/netconf/get_config/execute', { host: 'nc1', filter: `<system xmlns="${SYSTEM_NS}"/>` });
    expect((got.body as { data: string }).data).toContain(`<contact>ops ${SECRET_MASK}</contact>`);
    await gw.http('POST', '/gw/netconf/set_config/execute', { host: 'nc1', config: contact('gw@nap.example'), lock: true });

    const echoed = await gw.call<{ command: string; response: string }>('runCommand', {
      device: 'nc1',
      command: `echo "login ${password} ok"`,
    });
    expect([echoed.command, echoed.response]).toEqual([`echo "login ${SECRET_MASK} ok"`, `login ${SECRET_MASK} ok`]);
    const failed = await gw.http('POST', '/gw/sshSendConfigSet', {
      host: 'nc1',
      config_commands: [`echo "denied: ${password}" >&2`],
      error_pattern: 'denied',
    });
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({
      code: 'DEVICE_COMMAND_FAILED',
      message: expect.stringContaining(`echo "denied: ${SECRET_MASK}" >&2`) as unknown,
      details: { errorLines: [`denied: ${SECRET_MASK}`] },
    });
    const seen = JSON.stringify([got.body, echoed, failed.body]) + gw.logs();
    expect(seen).not.toContain(password);
  });
});

describe('HTTP requests to inventory devices', () => {
  it('sends to the device base URL with params and headers and answers { status_code, headers, text, json }', async () => {
    const res = await gw.http('POST', '/gw/http_requests/request/execute', {
      host: 'web1',
      method: 'GET',
      endpoint: '/items',
      params: { page: 2 },
      headers: { 'x-trace': 't1' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status_code: 200, headers: { 'x-device': 'lab' }, json: { items: ['a', 'b'], query: { page: '2' } } });
    expect(seen.at(-1)).toMatchObject({
      method: 'GET',
      url: '/api/v1/items?page=2',
      authorization: `Basic ${Buffer.from('api-user:api-Secret-9').toString('base64')}`,
    });
    expect(JSON.stringify(res.body)).not.toContain('api-Secret-9');
  });

  it('sends json and data bodies, and returns non-2xx answers as they are', async () => {
    const json = await gw.http('POST', '/gw/http_requests/request/execute', {
      host: 'web1',
      method: 'POST',
      endpoint: 'echo',
      json: { a: 1 },
    });
    expect(json.body).toMatchObject({ status_code: 201, json: { a: 1 } });
    const form = await gw.http('POST', '/gw/http_requests/request/execute', {
      host: 'web1',
      method: 'PUT',
      endpoint: 'echo',
      data: { x: 'y z' },
    });
    expect(form.body).toMatchObject({ status_code: 201, text: 'x=y+z' });
    const missing = await gw.http('POST', '/gw/http_requests/request/execute', { host: 'web1', method: 'GET', endpoint: 'nothing' });
    expect(missing).toMatchObject({ status: 200, body: { status_code: 404, text: 'no such thing' } });
  });

  it('follows redirects within the device only, and not at all when allow_redirects is false', async () => {
    const followed = await gw.http('POST', '/gw/http_requests/request/execute', { host: 'web1', method: 'GET', endpoint: 'moved' });
    expect(followed.body).toMatchObject({ status_code: 200, json: { query: { from: 'redirect' } } });
    const kept = await gw.http('POST', '/gw/http_requests/request/execute', {
      host: 'web1',
      method: 'GET',
      endpoint: 'moved',
      allow_redirects: false,
    });
    expect(kept.body).toMatchObject({ status_code: 302 });
    const away = await gw.http('POST', '/gw/http_requests/request/execute', { host: 'web1', method: 'GET', endpoint: 'elsewhere' });
    expect(away.body).toMatchObject({ status_code: 302, headers: { location: 'http://203.0.113.9/steal' } });
  });

  it('only inventory devices with a base URL are targets', async () => {
    const notInventory = await gw.http('POST', '/gw/http_requests/request/execute', { host: '127.0.0.1', method: 'GET', endpoint: '/' });
    expect(notInventory.status).toBe(404);
    expect(notInventory.body).toMatchObject({ code: 'DEVICE_NOT_FOUND' });
    const noBase = await gw.http('POST', '/gw/http_requests/request/execute', { host: 'nohttp', method: 'GET', endpoint: '/' });
    expect(noBase.status).toBe(422);
    expect(noBase.body).toMatchObject({ code: 'DEVICE_HTTP_NOT_CONFIGURED' });
    const absolute = await gw.http('POST', '/gw/http_requests/request/execute', {
      host: 'web1',
      method: 'GET',
      endpoint: 'http://198.51.100.1/x',
    });
    expect(absolute.status).toBe(422);
    expect(absolute.body).toMatchObject({ code: 'DEVICE_HTTP_NOT_CONFIGURED' });
  });

  it('maps a device that refuses the connection to 502 DEVICE_UNREACHABLE', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await gw.http('POST', '/gw/createInventoryDevice', { name: 'web-down', variables: { gw_http_base_url: `http://127.0.0.1:${port}` } });
    const res = await gw.http('POST', '/gw/http_requests/request/execute', { host: 'web-down', method: 'GET', endpoint: '/' });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'DEVICE_UNREACHABLE' });
  });
});
