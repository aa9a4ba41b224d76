import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryBus } from '@nap/bus';
import type { Bus } from '@nap/bus';
import { SECRET_MASK, eventPattern, subjectOf } from '@nap/contracts';
import { initTracing } from '@nap/telemetry';
import type { Tracing } from '@nap/telemetry';
import { eventually } from '@nap/testing';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { startNsoPeer } from '@nap/lab';
import type { NsoPeer } from '@nap/lab';
import { addNsoAdapter, startAdapter } from './nso-adapter';

/**
 * The orchestrator routes (`POST /orch_manager/restAction|restQuery|setLeaf/:adapterId`) through HTTP against the lab's NSO peer: RESTCONF
 * reads and edits, NSO's commit parameters and device actions, JSON-RPC leaf setting with dry runs,
 * and every error path (adapters unknown, stopped or of another type; the orchestrator's own errors;
 * an unreachable, failing or slow orchestrator).
 */

let platform: TestPlatform;
let token: string;
let peer: NsoPeer;
let tracing: Tracing;
/** What orch-proxy sent to admin.callAdapter and what came back, as bus payloads: no secret may be in them. */
const adapterCalls: string[] = [];

/** The in-process bus, with the requests to admin.callAdapter and their replies recorded. */
function tappedBus(): Bus {
  const inner = createMemoryBus();
  const subject = subjectOf('admin.callAdapter');
  return new Proxy(inner, {
    get(target, member) {
      if (member === 'request')
        return async (...args: Parameters<Bus['request']>) => {
          const reply = await target.request(...args);
          if (args[0] === subject) adapterCalls.push(Buffer.from(args[1]).toString('utf8'), Buffer.from(reply.data).toString('utf8'));
          return reply;
        };
      const value: unknown = Reflect.get(target, member);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const DEVICE = '/restconf/data/tailf-ncs:devices/device=C-IOS1';
const IOS = 'tailf-ned-cisco-ios';

beforeAll(async () => {
  // the W3C propagator, as every NAP process installs it at start (no exporter: spans are not recorded)
  tracing = initTracing({ serviceName: 'orch-proxy-test' });
  platform = await startTestPlatform({ bus: tappedBus() });
  token = await platform.login();
  peer = await startNsoPeer();
  await addNsoAdapter(platform, token, 'nso1', peer, { timeoutMs: 1_000 });
}, 30_000);

afterAll(async () => {
  await platform?.stop();
  await peer?.close();
  await tracing?.shutdown();
});

afterEach(() => {
  peer.clearFaults();
});

type Reply = { status: number; body: unknown; headers: Headers };

function post(route: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return platform.http('POST', route, { token, body, headers });
}

const query = (path: string, accept = 'yang-data+json', adapter = 'nso1') =>
  post(`/orch_manager/restQuery/${adapter}`, { params: { path, accept } });
const action = (params: Record<string, unknown>, body: Record<string, unknown> = {}, adapter = 'nso1') =>
  post(`/orch_manager/restAction/${adapter}`, { params: { accept: 'yang-data+json', ...params }, body });
const setLeaf = (body: Record<string, unknown>, adapter = 'nso1') =>
  post(`/orch_manager/setLeaf/${adapter}`, { variables: '', set: true, dryRun: false, options: 'outformat', ...body });

function errorOf(res: Reply): { code: string; message: string; details?: Record<string, unknown> } {
  return res.body as { code: string; message: string; details?: Record<string, unknown> };
}

/** The requests the peer received since `from`. */
function since(from: number) {
  return peer.requests.slice(from);
}

/** What a commit the orchestrator refuses or fails on sends: the transaction is deleted before the logout. */
const FAILED_COMMIT_RPCS = ['login', 'new_trans', 'set_value', 'validate_commit', 'commit', 'delete_trans', 'logout'];

function device(name: string): Record<string, unknown> {
  const devices = (peer.running['tailf-ncs:devices'] as { device: Record<string, unknown>[] }).device;
  const found = devices.find((d) => d.name === name);
  if (found === undefined) throw new Error(`no device ${name} in the peer`);
  return found;
}

function loopbacks(name: string): { name: string; description?: string }[] {
  return (
    (device(name).config as Record<string, { Loopback: { name: string; description?: string }[] }>)[`${IOS}:interface`]?.Loopback ?? []
  );
}

describe('restQuery (POST /orch_manager/restQuery/:adapterId)', () => {
  it("reads a device's configuration: [{ instance_data }] with the orchestrator's JSON, sent with the adapter's credentials", async () => {
    const from = peer.requests.length;
    const res = await query(`${DEVICE}/config`);
    expect(res.status).toBe(200);
    const [item] = res.body as { instance_data: Record<string, Record<string, unknown>> }[];
    expect(item?.instance_data['tailf-ncs:config']).toMatchObject({
      [`${IOS}:hostname`]: 'C-IOS1',
      [`${IOS}:interface`]: { Loopback: expect.arrayContaining([expect.objectContaining({ name: '100', description: 'customer-A' })]) },
    });
    const [sent] = since(from);
    expect(sent).toMatchObject({ method: 'GET', path: `${DEVICE}/config` });
    expect(sent?.headers.accept).toBe('application/yang-data+json');
    expect(sent?.headers.authorization).toBe(`Basic ${Buffer.from(`${peer.user}:${peer.password}`).toString('base64')}`);
  });

  it('reads a loopback by a key percent-encoded in the path, and an interface whose name holds a slash', async () => {
    const lo = await query(`${DEVICE}/config/${IOS}:interface/Loopback=100`);
    expect(lo.body).toEqual([
      {
        instance_data: {
          [`${IOS}:Loopback`]: [
            { name: '100', description: 'customer-A', ip: { address: { primary: { address: '10.100.0.1', mask: '255.255.255.255' } } } },
          ],
        },
      },
    ]);
    const gi = await query(`${DEVICE}/config/${IOS}:interface/GigabitEthernet=0%2F1`);
    expect(gi.body).toEqual([{ instance_data: { [`${IOS}:GigabitEthernet`]: [{ name: '0/1', description: 'customer-A handoff' }] } }]);
  });

  it('answers { } for an empty list (the orchestrator answers 204)', async () => {
    const res = await query('/restconf/data/tailf-ncs:devices/device=ce0/config/tailf-ned-cisco-ios:interface/Loopback');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ instance_data: {} }]);
  });

  it('normalises the bare media types of the spec (vnd.yang.collection+json) and reads the root resource', async () => {
    const from = peer.requests.length;
    const res = await query('/restconf/data/tailf-ncs:devices/device', 'vnd.yang.collection+json');
    expect(res.status).toBe(200);
    const names = (
      (res.body as { instance_data: { collection: { 'tailf-ncs:device': { name: string }[] } } }[])[0]?.instance_data.collection[
        'tailf-ncs:device'
      ] ?? []
    ).map((d) => d.name);
    expect(names).toEqual(expect.arrayContaining(['C-IOS1', 'C-IOS2', 'ce0']));
    expect(since(from)[0]?.headers.accept).toBe('application/vnd.yang.collection+json');
    const root = await query('/restconf', 'application/yang-data+json');
    expect(root.body).toEqual([
      { instance_data: { 'ietf-restconf:restconf': expect.objectContaining({ 'yang-library-version': '2019-01-04' }) } },
    ]);
  });

  it("forwards the request's W3C traceparent to the orchestrator (same trace id)", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const from = peer.requests.length;
    const res = await post(
      '/orch_manager/restQuery/nso1',
      { params: { path: `${DEVICE}/config/${IOS}:hostname`, accept: 'yang-data+json' } },
      { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    );
    expect(res.status).toBe(200);
    expect(String(since(from)[0]?.headers.traceparent)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
  });

  it("answers a path the orchestrator does not have as 404 with the orchestrator's status, error-tag and message", async () => {
    const res = await query('/restconf/data/tailf-ncs:devices/device=NO-SUCH-DEVICE');
    expect(res.status).toBe(404);
    const err = errorOf(res);
    expect(err.code).toBe('ORCH_PATH_NOT_FOUND');
    expect(err.message).toContain(
      'answered 404 to GET /restconf/data/tailf-ncs:devices/device=NO-SUCH-DEVICE: uri keypath not found (error-tag invalid-value)',
    );
    expect(err.details).toMatchObject({
      status: 404,
      errors: [{ tag: 'invalid-value', message: 'uri keypath not found', type: 'application' }],
    });
  });

  it('answers 400 for a query parameter the orchestrator does not know, and for a path that is not from the root', async () => {
    const unknown = await query(`${DEVICE}?frobnicate=1`);
    expect(unknown.status).toBe(400);
    expect(errorOf(unknown)).toMatchObject({
      code: 'ORCH_BAD_REQUEST',
      details: { status: 400, errors: [{ tag: 'invalid-value', message: 'unknown query parameter "frobnicate" for GET' }] },
    });
    const relative = await query('restconf/data');
    expect(relative.status).toBe(400);
    expect(errorOf(relative)).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.params.path' }] });
  });
});

describe('restAction (POST /orch_manager/restAction/:adapterId)', () => {
  const interfaces = `${DEVICE}/config/${IOS}:interface`;
  const lo = (name: string, description: string) => ({
    [`${IOS}:Loopback`]: [{ name, description, ip: { address: { primary: { address: `10.${name}.0.1`, mask: '255.255.255.255' } } } }],
  });

  it('creates a loopback with POST: [{ result: "201" }], and a second POST of it is 409 data-exists', async () => {
    const from = peer.requests.length;
    const created = await action({ path: interfaces, method: 'POST', contentType: 'yang-data+json' }, lo('200', 'created by restAction'));
    expect(created.status).toBe(200);
    expect(created.body).toEqual([{ result: '201' }]);
    expect(loopbacks('C-IOS1').find((l) => l.name === '200')).toMatchObject({ description: 'created by restAction' });
    const [sent] = since(from);
    expect(sent).toMatchObject({ method: 'POST', path: interfaces });
    expect(sent?.headers['content-type']).toBe('application/yang-data+json');
    expect(JSON.parse(sent?.body ?? '')).toEqual(lo('200', 'created by restAction'));

    const again = await action({ path: interfaces, method: 'POST', contentType: 'yang-data+json' }, lo('200', 'again'));
    expect(again.status).toBe(409);
    expect(errorOf(again)).toMatchObject({ code: 'ORCH_CONFLICT', details: { status: 409, errors: [{ tag: 'data-exists' }] } });
    expect(errorOf(again).message).toContain('(error-tag data-exists)');
  });

  it('changes with PATCH (204), replaces or creates with PUT (204 / 201) and deletes with DELETE (204; 404 when gone)', async () => {
    const entry = `${interfaces}/Loopback=201`;
    expect((await action({ path: entry, method: 'PUT' }, lo('201', 'put-created'))).body).toEqual([{ result: '201' }]);
    expect((await action({ path: entry, method: 'PUT' }, lo('201', 'put-replaced'))).body).toEqual([{ result: '204' }]);
    expect(
      (await action({ path: entry, method: 'PATCH' }, { [`${IOS}:Loopback`]: [{ name: '201', description: 'patched' }] })).body,
    ).toEqual([{ result: '204' }]);
    expect(loopbacks('C-IOS1').find((l) => l.name === '201')).toMatchObject({ description: 'patched', ip: expect.anything() });
    expect((await action({ path: entry, method: 'DELETE' })).body).toEqual([{ result: '204' }]);
    expect(loopbacks('C-IOS1').some((l) => l.name === '201')).toBe(false);
    const gone = await action({ path: entry, method: 'DELETE' });
    expect(gone.status).toBe(404);
    expect(errorOf(gone).code).toBe('ORCH_PATH_NOT_FOUND');
  });

  it("answers a body as JSON text: GET through restAction, and rollback-id's result", async () => {
    const got = await action({ path: `${DEVICE}/config/${IOS}:hostname`, method: 'GET' });
    expect(got.body).toEqual([{ result: JSON.stringify({ [`${IOS}:hostname`]: 'C-IOS1' }) }]);
    const patched = await action(
      { path: `${interfaces}/Loopback=0?rollback-id=true`, method: 'PATCH' },
      { [`${IOS}:Loopback`]: [{ name: '0', description: 'router-id (rollback)' }] },
    );
    expect(patched.status).toBe(200);
    const result = JSON.parse((patched.body as { result: string }[])[0]?.result ?? '') as {
      'tailf-restconf:result': { rollback: { id: number } };
    };
    expect(result['tailf-restconf:result'].rollback.id).toBeGreaterThan(10000);
  });

  it('dry-runs a change (dry-run=cli and native) without committing it', async () => {
    const commits = peer.commits;
    const path = `${interfaces}/Loopback=100`;
    const cli = await action(
      { path: `${path}?dry-run=cli`, method: 'PATCH' },
      { [`${IOS}:Loopback`]: [{ name: '100', description: 'customer-A (moved)' }] },
    );
    expect(cli.status).toBe(200);
    const cliResult = JSON.parse((cli.body as { result: string }[])[0]?.result ?? '') as {
      'dry-run-result': { cli: { 'local-node': { data: string } } };
    };
    expect(cliResult['dry-run-result'].cli['local-node'].data).toContain('-                    description customer-A;');
    expect(cliResult['dry-run-result'].cli['local-node'].data).toContain('+                    description customer-A (moved);');
    const native = await action(
      { path: `${path}?dry-run=native`, method: 'PATCH' },
      { [`${IOS}:Loopback`]: [{ name: '100', description: 'customer-A (moved)' }] },
    );
    const nativeResult = JSON.parse((native.body as { result: string }[])[0]?.result ?? '') as {
      'dry-run-result': { native: { device: { name: string; data: string }[] } };
    };
    expect(nativeResult['dry-run-result'].native.device).toEqual([
      { name: 'C-IOS1', data: 'interface Loopback100\n description customer-A (moved)\n exit\n' },
    ]);
    expect(peer.commits).toBe(commits);
    expect(loopbacks('C-IOS1').find((l) => l.name === '100')?.description).toBe('customer-A');
    const bad = await action({ path: `${path}?dry-run=yaml`, method: 'PATCH' }, { [`${IOS}:Loopback`]: [{ name: '100' }] });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toMatchObject({
      code: 'ORCH_BAD_REQUEST',
      details: { errors: [{ message: 'invalid value for dry-run: "yaml" (cli, native or xml)' }] },
    });
  });

  it('runs device actions (POST, the default method): check-sync, and an out-of-sync device refuses commits until sync-from', async () => {
    const device2 = '/restconf/data/tailf-ncs:devices/device=C-IOS2';
    expect((await action({ path: `${device2}/check-sync` })).body).toEqual([
      { result: JSON.stringify({ 'tailf-ncs:output': { result: 'in-sync' } }) },
    ]);
    peer.setOutOfSync('C-IOS2', true);
    try {
      const check = JSON.parse(((await action({ path: `${device2}/check-sync` })).body as { result: string }[])[0]?.result ?? '') as {
        'tailf-ncs:output': { result: string };
      };
      expect(check['tailf-ncs:output'].result).toBe('out-of-sync');
      const change = { [`${IOS}:hostname`]: 'C-IOS2-NEW' };
      const refused = await action({ path: `${device2}/config/${IOS}:hostname`, method: 'PATCH' }, change);
      expect(refused.status).toBe(409);
      expect(errorOf(refused)).toMatchObject({
        code: 'ORCH_CONFLICT',
        details: { errors: [{ tag: 'in-use', message: 'Network Element Driver: device C-IOS2: out of sync' }] },
      });
      const queued = await action(
        { path: `${device2}/config/${IOS}:hostname?commit-queue=async&no-out-of-sync-check`, method: 'PATCH' },
        change,
      );
      expect(queued.status).toBe(200);
      expect(JSON.parse((queued.body as { result: string }[])[0]?.result ?? '')).toMatchObject({
        'tailf-restconf:result': { 'commit-queue': { status: 'async' } },
      });
      expect((await action({ path: `${device2}/sync-from` })).body).toEqual([
        { result: JSON.stringify({ 'tailf-ncs:output': { result: true } }) },
      ]);
      expect(
        (await action({ path: `${device2}/config/${IOS}:hostname`, method: 'PATCH' }, { [`${IOS}:hostname`]: 'C-IOS2' })).body,
      ).toEqual([{ result: '204' }]);
      const params = await action({ path: `${device2}/check-sync?dry-run=cli` });
      expect(errorOf(params)).toMatchObject({
        code: 'ORCH_BAD_REQUEST',
        details: { errors: [{ message: 'query parameters are not supported for actions' }] },
      });
    } finally {
      peer.setOutOfSync('C-IOS2', false);
    }
  });

  it('refuses a method that is not HTTP, and an empty media type, naming the member', async () => {
    const method = await action({ path: DEVICE, method: 'FETCH' });
    expect(method.status).toBe(400);
    expect(errorOf(method)).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.params.method' }] });
    const accept = await action({ path: DEVICE, method: 'GET', accept: ' ' });
    expect(errorOf(accept)).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.params.accept' }] });
  });
});

describe('setLeaf (POST /orch_manager/setLeaf/:adapterId)', () => {
  const hostnameLeaf = {
    path: '/ncs:devices/device{<!dev!>}/config/ios:hostname',
    value: '!host!',
    variables: 'dev C-IOS1\nhost C-IOS1-EDGE',
  };

  it('dry-runs first: the change as NSO would make it, nothing committed, the transaction closed', async () => {
    const from = peer.requests.length;
    const commits = peer.commits;
    const res = await setLeaf({ ...hostnameLeaf, dryRun: true, options: 'dryrun' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        action: 'update',
        path_raw: hostnameLeaf.path,
        path_evaluated: '/ncs:devices/device{C-IOS1}/config/ios:hostname',
        value_raw: '!host!',
        value_evaluated: 'C-IOS1-EDGE',
        dry_run: {
          'dry-run-result': {
            cli: {
              'local-node': {
                data: ' devices {\n     device C-IOS1 {\n         config {\n-            hostname C-IOS1;\n+            hostname C-IOS1-EDGE;\n         }\n     }\n }\n',
              },
            },
          },
        },
      },
    ]);
    const sent = since(from);
    expect(sent.map((r) => r.rpc)).toEqual(['login', 'new_trans', 'set_value', 'validate_commit', 'commit', 'logout']);
    expect(sent.every((r) => r.path === '/jsonrpc' && r.method === 'POST')).toBe(true);
    // login as NSO documents it, with the adapter's credentials that admin wrote in; later calls carry the session cookie
    expect(JSON.parse(sent[0]?.body ?? '')).toMatchObject({
      jsonrpc: '2.0',
      method: 'login',
      params: { user: peer.user, passwd: peer.password },
    });
    expect(sent[1]?.headers.cookie).toMatch(new RegExp(`^sessionid_${peer.port}=sess\\d+$`));
    expect(sent[5]?.headers.cookie).toBe(sent[1]?.headers.cookie);
    expect(JSON.parse(sent[4]?.body ?? '').params).toMatchObject({ flags: ['dry-run=cli'] });
    expect(peer.commits).toBe(commits);
    expect(device('C-IOS1').config).toMatchObject({ [`${IOS}:hostname`]: 'C-IOS1' });
    expect({ sessions: peer.sessions, transactions: peer.transactions }).toEqual({ sessions: 0, transactions: 0 });
  });

  it("dry-runs in the devices' own commands with options outformat", async () => {
    const res = await setLeaf({ ...hostnameLeaf, dryRun: true, options: 'outformat' });
    expect((res.body as { dry_run: unknown }[])[0]?.dry_run).toEqual({
      'dry-run-result': { native: { device: [{ name: 'C-IOS1', data: 'hostname C-IOS1-EDGE\n' }] } },
    });
  });

  it('commits, then the change reads back through restQuery; options pass as commit flags (no_overwrite, sync)', async () => {
    const from = peer.requests.length;
    const res = await setLeaf({ ...hostnameLeaf, variables: 'dev C-IOS1\nhost C-IOS1-COMMITTED', options: 'no_overwrite' });
    expect(res.body).toEqual([
      {
        action: 'update',
        path_raw: hostnameLeaf.path,
        path_evaluated: '/ncs:devices/device{C-IOS1}/config/ios:hostname',
        value_raw: '!host!',
        value_evaluated: 'C-IOS1-COMMITTED',
      },
    ]);
    const commit = since(from).find((r) => r.rpc === 'commit');
    expect(JSON.parse(commit?.body ?? '').params).toMatchObject({ flags: ['no-overwrite'] });
    expect((await query(`${DEVICE}/config/${IOS}:hostname`)).body).toEqual([
      { instance_data: { [`${IOS}:hostname`]: 'C-IOS1-COMMITTED' } },
    ]);
    const queued = await setLeaf({ path: '/devices/device{C-IOS1}/config/hostname', value: 'C-IOS1', options: 'sync' });
    expect(queued.status).toBe(200);
    expect(device('C-IOS1').config).toMatchObject({ [`${IOS}:hostname`]: 'C-IOS1' });
  });

  it('deletes a leaf with set false (action delete)', async () => {
    const res = await setLeaf({
      path: '/ncs:devices/device{C-IOS1}/config/ios:interface/Loopback{!lo!}/description',
      value: '',
      variables: 'lo 101',
      set: false,
    });
    expect(res.body).toEqual([
      {
        action: 'delete',
        path_raw: '/ncs:devices/device{C-IOS1}/config/ios:interface/Loopback{!lo!}/description',
        path_evaluated: '/ncs:devices/device{C-IOS1}/config/ios:interface/Loopback{101}/description',
        value_raw: '',
        value_evaluated: '',
      },
    ]);
    expect(loopbacks('C-IOS1').find((l) => l.name === '101')).not.toHaveProperty('description');
  });

  it('stages: writes and validates, never commits, and deletes the transaction', async () => {
    const from = peer.requests.length;
    const commits = peer.commits;
    const res = await setLeaf({ path: '/devices/device{C-IOS2}/config/hostname', value: 'STAGED', options: 'staging' });
    expect(res.status).toBe(200);
    expect(since(from).map((r) => r.rpc)).toEqual(['login', 'new_trans', 'set_value', 'validate_commit', 'delete_trans', 'logout']);
    expect(peer.commits).toBe(commits);
    expect(device('C-IOS2').config).toMatchObject({ [`${IOS}:hostname`]: 'C-IOS2' });
  });

  it('keeps the credentials out of orch-proxy: admin writes them into the login on its way out, and no answer carries them', async () => {
    adapterCalls.splice(0);
    const res = await setLeaf({ ...hostnameLeaf, dryRun: true, options: 'dryrun' });
    expect(res.status).toBe(200);
    const [login] = adapterCalls;
    expect(JSON.parse(login ?? '{}')).toMatchObject({
      body: {
        body: { method: 'login', params: {} },
        credentialsAt: { user: '/params/user', password: '/params/passwd' },
      },
    });
    expect(adapterCalls.length).toBe(12);
    for (const payload of adapterCalls) expect(payload).not.toContain(peer.password);
    expect(JSON.stringify(res.body)).not.toContain(peer.password);
  });

  it('works with an older NSO that names its session cookie sessionid', async () => {
    const older = await startNsoPeer({ sessionCookie: 'sessionid' });
    try {
      await addNsoAdapter(platform, token, 'nso-older', older);
      const res = await setLeaf({ ...hostnameLeaf, options: 'staging' }, 'nso-older');
      expect(res.status).toBe(200);
      const sent = older.requests.filter((r) => r.path === '/jsonrpc');
      expect(sent.map((r) => r.rpc)).toEqual(['login', 'new_trans', 'set_value', 'validate_commit', 'delete_trans', 'logout']);
      expect(sent[1]?.headers.cookie).toMatch(/^sessionid=sess\d+$/);
      expect({ sessions: older.sessions, transactions: older.transactions }).toEqual({ sessions: 0, transactions: 0 });
    } finally {
      await older.close();
    }
  });

  it('refuses an undefined variable and a dry run with the commit queue or no_overwrite, sending nothing', async () => {
    const from = peer.requests.length;
    const undefinedVar = await setLeaf({ ...hostnameLeaf, variables: 'dev C-IOS1' });
    expect(undefinedVar.status).toBe(400);
    expect(errorOf(undefinedVar)).toMatchObject({ code: 'ORCH_VARIABLE_UNDEFINED', details: [{ member: 'body.value', variable: 'host' }] });
    expect(errorOf(undefinedVar).message).toBe('Variable "host" used in body.value is not defined in body.variables (it defines dev)');
    for (const options of ['async', 'sync', 'no_overwrite']) {
      const res = await setLeaf({ ...hostnameLeaf, dryRun: true, options });
      expect(res.status).toBe(400);
      expect(errorOf(res)).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.options' }] });
    }
    const dryrunAndAsync = await setLeaf({ ...hostnameLeaf, options: 'dryrun' });
    expect(dryrunAndAsync.status).toBe(200);
    expect(
      since(from)
        .filter((r) => r.rpc === 'commit')
        .map((r) => JSON.parse(r.body).params.flags),
    ).toEqual([['dry-run=cli']]);
  });

  it("deletes the transaction when a step fails, and answers the orchestrator's error", async () => {
    const from = peer.requests.length;
    const res = await setLeaf({ path: '/ncs:devices/device{NO-SUCH}/config/ios:hostname', value: 'x' });
    expect(res.status).toBe(404);
    expect(errorOf(res)).toMatchObject({ code: 'ORCH_PATH_NOT_FOUND', details: { method: 'set_value', type: 'data.not_found' } });
    expect(since(from).map((r) => r.rpc)).toEqual(['login', 'new_trans', 'set_value', 'delete_trans', 'logout']);
    expect({ sessions: peer.sessions, transactions: peer.transactions }).toEqual({ sessions: 0, transactions: 0 });
  });

  it("answers a commit refused for an out-of-sync device with NSO's reason, after deleting the transaction", async () => {
    peer.setOutOfSync('C-IOS2', true);
    try {
      const from = peer.requests.length;
      const res = await setLeaf({ path: '/devices/device{C-IOS2}/config/hostname', value: 'C-IOS2-X' });
      expect(res.status).toBe(422);
      expect(errorOf(res)).toMatchObject({
        code: 'ORCH_REFUSED',
        details: { method: 'commit', type: 'rpc.method.failed', data: { reason: 'Network Element Driver: device C-IOS2: out of sync' } },
      });
      expect(since(from).map((r) => r.rpc)).toEqual(FAILED_COMMIT_RPCS);
      expect(peer.transactions).toBe(0);
    } finally {
      peer.setOutOfSync('C-IOS2', false);
    }
  });

  it('answers a failing orchestrator (500 on commit) as 502 ORCH_FAILED and still cleans up', async () => {
    peer.inject({ match: { rpc: 'commit' }, status: 500, times: 1 });
    const from = peer.requests.length;
    const res = await setLeaf({ path: '/devices/device{C-IOS2}/config/hostname', value: 'C-IOS2-Y' });
    expect(res.status).toBe(502);
    expect(errorOf(res)).toMatchObject({ code: 'ORCH_FAILED', details: { status: 500 } });
    expect(since(from).map((r) => r.rpc)).toEqual(FAILED_COMMIT_RPCS);
    expect(peer.transactions).toBe(0);
  });
});

describe('adapters and an orchestrator that fails', () => {
  it('answers 404 for an unknown adapter, 409 for one that is not RUNNING, 422 for one that is not NSO', async () => {
    const unknown = await query(DEVICE, 'yang-data+json', 'no-such-adapter');
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown).code).toBe('ADAPTER_NOT_FOUND');

    await addNsoAdapter(platform, token, 'nso-stopped', peer, { start: false });
    const stopped = await query(DEVICE, 'yang-data+json', 'nso-stopped');
    expect(stopped.status).toBe(409);
    expect(errorOf(stopped)).toMatchObject({ code: 'ADAPTER_NOT_RUNNING', message: expect.stringContaining('is STOPPED, not RUNNING') });

    const httpAdapter = {
      name: 'web',
      type: 'Adapter',
      model: '@nap/adapter-http',
      properties: { id: 'web', type: 'HTTP', properties: { server: { protocol: 'http', host: '127.0.0.1', port: peer.port } } },
    };
    expect((await platform.http('POST', '/adapters', { token, body: { properties: httpAdapter } })).status).toBe(200);
    const notNso = await setLeaf({ path: '/devices/device{C-IOS1}/config/hostname', value: 'x' }, 'web');
    expect(notNso.status).toBe(422);
    expect(errorOf(notNso).code).toBe('ORCH_ADAPTER_NOT_NSO');
  });

  it('drops its cached record on adapterChanged: a stopped adapter is 409 at once, and works again once restarted', async () => {
    await addNsoAdapter(platform, token, 'nso-cycle', peer);
    expect((await query(`${DEVICE}/config/${IOS}:hostname`, 'yang-data+json', 'nso-cycle')).status).toBe(200);
    const seen: string[] = [];
    const events = await platform.bus.consumeEvents(
      eventPattern('admin', 'adapter', 'nso-cycle'),
      (e) => {
        seen.push(String((JSON.parse(Buffer.from(e.data).toString('utf8')) as { state?: string }).state));
      },
      { deliver: 'new' },
    );
    const stopped = await platform.http('PUT', '/adapters/nso-cycle/stop', { token });
    expect(stopped.status).toBe(200);
    await eventually('the adapterChanged STOPPED event', () => seen.includes('STOPPED'), { timeoutMs: 5_000 });
    await events.unsubscribe();
    const from = peer.requests.length;
    // orch-proxy dropped its record on the event: it reads it again and refuses before calling admin
    // (its own message names the start route; admin's would not)
    const refused = await query(`${DEVICE}/config/${IOS}:hostname`, 'yang-data+json', 'nso-cycle');
    expect(refused.status).toBe(409);
    expect(errorOf(refused)).toMatchObject({
      code: 'ADAPTER_NOT_RUNNING',
      message:
        'Adapter "nso-cycle" is STOPPED, not RUNNING; start it (PUT /adapters/nso-cycle/start), or restart it once the orchestrator answers',
    });
    expect(since(from)).toEqual([]);
    await startAdapter(platform, token, 'nso-cycle');
    expect((await query(`${DEVICE}/config/${IOS}:hostname`, 'yang-data+json', 'nso-cycle')).status).toBe(200);
  });

  it('answers credentials the orchestrator refuses as 502 ORCH_AUTH_FAILED (RESTCONF 401 and JSON-RPC login)', async () => {
    await addNsoAdapter(platform, token, 'nso-badpass', peer, { password: 'wrong-password' });
    const rest = await query(DEVICE, 'yang-data+json', 'nso-badpass');
    expect(rest.status).toBe(502);
    expect(errorOf(rest)).toMatchObject({ code: 'ORCH_AUTH_FAILED', details: { status: 401, errors: [{ tag: 'access-denied' }] } });
    const rpc = await setLeaf({ path: '/devices/device{C-IOS1}/config/hostname', value: 'x' }, 'nso-badpass');
    expect(rpc.status).toBe(502);
    expect(errorOf(rpc)).toMatchObject({ code: 'ORCH_AUTH_FAILED', details: { method: 'login', type: 'rpc.method.failed' } });
    expect(JSON.stringify(rpc.body)).not.toContain('wrong-password');
  });

  it('answers a 5xx of the orchestrator as 502 ORCH_FAILED with its status', async () => {
    peer.inject({ match: { path: '/restconf/data' }, status: 503, times: 1 });
    const res = await query(DEVICE);
    expect(res.status).toBe(502);
    expect(errorOf(res)).toMatchObject({
      code: 'ORCH_FAILED',
      details: { status: 503, errors: [{ tag: 'operation-failed', message: 'injected fault: 503' }] },
    });
  });

  it('answers a connection reset as 502 UPSTREAM_FAILED', async () => {
    peer.inject({ match: { path: '/restconf/data' }, reset: true, times: 1 });
    const res = await query(DEVICE);
    expect(res.status).toBe(502);
    expect(errorOf(res).code).toBe('UPSTREAM_FAILED');
  });

  it("answers a slow orchestrator as 504 DEVICE_TIMEOUT once the adapter's timeoutMs has passed, not when the orchestrator answers", async () => {
    peer.inject({ match: { path: '/restconf/data' }, delayMs: 10_000, times: 1 });
    const started = Date.now();
    const res = await query(DEVICE);
    expect(res.status).toBe(504);
    expect(errorOf(res)).toMatchObject({ code: 'DEVICE_TIMEOUT', message: expect.stringContaining('within 1000 ms') });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('answers an orchestrator that is down as 502 UPSTREAM_FAILED', async () => {
    const down = await startNsoPeer();
    await addNsoAdapter(platform, token, 'nso-down', down);
    await down.close();
    const res = await query(DEVICE, 'yang-data+json', 'nso-down');
    expect(res.status).toBe(502);
    expect(errorOf(res)).toMatchObject({ code: 'UPSTREAM_FAILED', message: expect.stringContaining('could not be reached') });
  });

  it("masks the orchestrator's credentials it echoes: the adapter's password (by admin) and the JSON-RPC session id (by orch-proxy)", async () => {
    // an orchestrator that quotes each JSON-RPC request, with its Cookie and Authorization headers, in its errors
    const right = 'echo-Pa55word-right';
    const sessionId = 'echo-session-7f3a9c2e51d4';
    const echo = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const reply = (json: unknown, headers: Record<string, string> = {}) => {
          res.writeHead(200, { 'content-type': 'application/json', ...headers });
          res.end(JSON.stringify(json));
        };
        if (req.url !== '/jsonrpc') return reply({});
        const rpc = JSON.parse(body) as { id: number; method: string; params: { passwd?: string } };
        const quoted = `${body} cookie=${req.headers.cookie ?? '-'} authorization=${req.headers.authorization ?? '-'}`;
        if (rpc.method === 'login' && rpc.params.passwd === right)
          return reply({ jsonrpc: '2.0', id: rpc.id, result: {} }, { 'set-cookie': `sessionid=${sessionId}; path=/` });
        reply({
          jsonrpc: '2.0',
          id: rpc.id,
          error: { type: 'rpc.method.failed', message: `refused ${quoted}`, data: { request: quoted } },
        });
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    try {
      const orchestrator = { port: (echo.address() as AddressInfo).port, user: 'echo-user' };
      await addNsoAdapter(platform, token, 'nso-echo', { ...orchestrator, password: right });
      await addNsoAdapter(platform, token, 'nso-echo-bad', { ...orchestrator, password: 'echo-Pa55word-wrong' });
      adapterCalls.splice(0);
      const leaf = { path: '/devices/device{C-IOS1}/config/hostname', value: 'x' };

      const login = await setLeaf(leaf, 'nso-echo-bad');
      expect(login.status).toBe(502);
      expect(errorOf(login)).toMatchObject({
        code: 'ORCH_AUTH_FAILED',
        message: expect.stringContaining(`"passwd":"${SECRET_MASK}"`) as unknown,
      });
      expect(errorOf(login).message).toContain(`authorization=Basic ${SECRET_MASK}`);

      const call = await setLeaf(leaf, 'nso-echo');
      expect(call.status).toBe(422);
      expect(errorOf(call)).toMatchObject({
        code: 'ORCH_REFUSED',
        message: expect.stringContaining(`cookie=sessionid=${SECRET_MASK}`) as unknown,
        details: { method: 'new_trans', data: { request: expect.stringContaining(`cookie=sessionid=${SECRET_MASK}`) as unknown } },
      });

      const answers = JSON.stringify([login.body, call.body]);
      for (const secret of [right, 'echo-Pa55word-wrong', sessionId]) expect(answers).not.toContain(secret);
      // the session id travels between orch-proxy and admin (orch-proxy sends it); the password never does
      for (const payload of adapterCalls) for (const secret of [right, 'echo-Pa55word-wrong']) expect(payload).not.toContain(secret);
    } finally {
      await new Promise((resolve) => echo.close(resolve));
    }
  });
});
