import { AppError } from '@nap/contracts';
import type { AdapterRecord, OutboundResponse } from '@nap/contracts';
import { ROOT_CONTEXT } from '@nap/telemetry';
import { AdapterCache } from '../src/clients/adapter-cache';
import { Orchestrator } from '../src/clients/orchestrator';
import { orchestratorAdapter } from '../src/domain/adapter';
import { codeForRpcError, jsonRpcResult, loginRequest, sessionCookie } from '../src/domain/jsonrpc';
import { codeForStatus, mediaType, restconfError } from '../src/domain/orchestrator-requests';

function record(name: string, type: 'NSO' | 'HTTP', state: AdapterRecord['metadata']['state'] = 'RUNNING'): AdapterRecord {
  return {
    metadata: { isActive: state === 'RUNNING', state },
    data: {
      name,
      properties: {
        type,
        properties: { http: { host: 'nso.example', port: 8080 }, credentials: { user: 'admin', passwd: '********' }, timeoutMs: 2500 },
      },
    },
  };
}

describe('adapter records', () => {
  it('keeps name, state and the call bound, never the credentials', () => {
    const adapter = orchestratorAdapter(record('nso1', 'NSO'));
    expect(adapter).toEqual({ name: 'nso1', state: 'RUNNING', timeoutMs: 2500 });
    expect(JSON.stringify(adapter)).not.toContain('credentials');
  });

  it('refuses an adapter of another type with 422 ORCH_ADAPTER_NOT_NSO', () => {
    expect(() => orchestratorAdapter(record('web', 'HTTP'))).toThrow(expect.objectContaining({ code: 'ORCH_ADAPTER_NOT_NSO' }));
  });

  it('reads a record once for concurrent first uses, until dropped; a failed read is not kept', async () => {
    const cache = new AdapterCache();
    let reads = 0;
    const load = async (name: string) => {
      reads += 1;
      if (name === 'gone') throw new AppError('ADAPTER_NOT_FOUND', 'No adapter "gone"');
      return record(name, 'NSO');
    };
    await Promise.all([cache.running('nso1', load), cache.running('nso1', load), cache.running('nso1', load)]);
    expect(reads).toBe(1);
    cache.drop('nso1');
    await cache.running('nso1', load);
    expect(reads).toBe(2);
    await expect(cache.running('gone', load)).rejects.toMatchObject({ code: 'ADAPTER_NOT_FOUND' });
    expect(cache.size).toBe(1);
  });

  it('answers 409 ADAPTER_NOT_RUNNING for an adapter that is not RUNNING', async () => {
    const cache = new AdapterCache();
    await expect(cache.running('nso1', async () => record('nso1', 'NSO', 'DEAD'))).rejects.toMatchObject({
      code: 'ADAPTER_NOT_RUNNING',
      message: expect.stringContaining('is DEAD'),
    });
  });

  it('re-reads a record after its time to live', async () => {
    const cache = new AdapterCache(0);
    let reads = 0;
    const load = async () => {
      reads += 1;
      return record('nso1', 'NSO');
    };
    await cache.get('nso1', load);
    await cache.get('nso1', load);
    expect(reads).toBe(2);
  });
});

describe('orchestrator answers', () => {
  it.each([
    [400, 'ORCH_BAD_REQUEST'],
    [401, 'ORCH_AUTH_FAILED'],
    [403, 'ORCH_AUTH_FAILED'],
    [404, 'ORCH_PATH_NOT_FOUND'],
    [406, 'ORCH_REFUSED'],
    [409, 'ORCH_CONFLICT'],
    [412, 'ORCH_REFUSED'],
    [500, 'ORCH_FAILED'],
    [503, 'ORCH_FAILED'],
    [302, 'ORCH_FAILED'],
  ])('status %i is %s', (status, code) => {
    expect(codeForStatus(status)).toBe(code);
  });

  it("names the orchestrator's status, error-tag and message, keeping every error entry", () => {
    const answer: OutboundResponse = {
      status: 409,
      headers: {},
      body: {
        'ietf-restconf:errors': {
          error: [
            { 'error-type': 'application', 'error-tag': 'data-exists', 'error-path': '/x', 'error-message': 'object already exists' },
            { 'error-tag': 'in-use' },
          ],
        },
      },
    };
    const err = restconfError('nso1', { method: 'POST', path: '/restconf/data/x' }, answer);
    expect(err).toMatchObject({
      code: 'ORCH_CONFLICT',
      status: 409,
      message: 'Orchestrator "nso1" answered 409 to POST /restconf/data/x: object already exists (error-tag data-exists)',
    });
    expect(err.details).toEqual({
      status: 409,
      method: 'POST',
      path: '/restconf/data/x',
      errors: [{ type: 'application', tag: 'data-exists', path: '/x', message: 'object already exists' }, { tag: 'in-use' }],
    });
  });

  it('says where the credentials an orchestrator refuses are fixed, on RESTCONF 401/403 and a refused JSON-RPC login', () => {
    const denied = { 'ietf-restconf:errors': { error: [{ 'error-tag': 'access-denied', 'error-message': 'access denied' }] } };
    expect(restconfError('nso1', { method: 'GET', path: '/restconf/data' }, { status: 401, headers: {}, body: denied }).message).toBe(
      'Orchestrator "nso1" answered 401 to GET /restconf/data: access denied (error-tag access-denied); fix the credentials (user, passwd) of adapter "nso1": PUT /adapters/nso1/properties',
    );
    const rpc = (type: string, method: string) => {
      const answer = { status: 200, headers: {}, body: { jsonrpc: '2.0', id: 1, error: { type, message: 'Method failed' } } };
      try {
        jsonRpcResult('nso1', method, loginRequest(1), answer);
      } catch (err) {
        return err as AppError;
      }
      throw new Error('no error');
    };
    expect(rpc('rpc.method.failed', 'login')).toMatchObject({
      code: 'ORCH_AUTH_FAILED',
      message:
        'Orchestrator "nso1" refused JSON-RPC login: Method failed (type rpc.method.failed); fix the credentials (user, passwd) of adapter "nso1": PUT /adapters/nso1/properties',
    });
    // an expired session is no credential problem
    expect(rpc('session.invalid_sessionid', 'set_value').message).not.toContain('fix the credentials');
  });

  it('keeps a body that is not RESTCONF errors', () => {
    const err = restconfError('nso1', { method: 'GET', path: '/restconf' }, { status: 502, headers: {}, body: 'Bad Gateway' });
    expect(err).toMatchObject({
      code: 'ORCH_FAILED',
      message: 'Orchestrator "nso1" answered 502 to GET /restconf: Bad Gateway',
      details: { status: 502, errors: [], body: 'Bad Gateway' },
    });
  });

  it.each([
    ['login', 'rpc.method.failed', 'ORCH_AUTH_FAILED'],
    ['set_value', 'session.invalid_sessionid', 'ORCH_AUTH_FAILED'],
    ['set_value', 'data.not_found', 'ORCH_PATH_NOT_FOUND'],
    ['set_value', 'db.locked', 'ORCH_CONFLICT'],
    ['set_value', 'rpc.method.invalid_params', 'ORCH_BAD_REQUEST'],
    ['commit', 'rpc.method.failed', 'ORCH_REFUSED'],
    ['validate_commit', 'trans.validation_failed', 'ORCH_REFUSED'],
    ['commit', 'rpc.internal_error', 'ORCH_FAILED'],
    ['frob', 'rpc.method.not_found', 'ORCH_FAILED'],
  ])('JSON-RPC %s error %s is %s', (method, type, code) => {
    expect(codeForRpcError(method, type)).toBe(code);
  });

  it('logs in as NSO documents it, the credentials left for admin to write at the pointers', () => {
    expect(loginRequest(1)).toEqual({
      method: 'POST',
      path: '/jsonrpc',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: { jsonrpc: '2.0', id: 1, method: 'login', params: {} },
      credentialsAt: { user: '/params/user', password: '/params/passwd' },
    });
  });

  it.each([
    ['sessionid=sess123; path=/; HttpOnly', 'sessionid=sess123'],
    ['sessionid_8080=sess123; path=/; HttpOnly', 'sessionid_8080=sess123'],
    // admin joins several Set-Cookie headers with ", "
    ['lang=en; Expires=Wed, 21 Oct 2026 07:28:00 GMT, sessionid_8888=sessAB==; path=/; Secure', 'sessionid_8888=sessAB=='],
    ['sessionid=a; path=/, sessionid_8080=b; path=/', 'sessionid=a; sessionid_8080=b'],
  ])('sends back the session cookie of %s as %s', (setCookie, cookie) => {
    expect(sessionCookie('nso1', setCookie)).toBe(cookie);
  });

  it('refuses a login answer without a session cookie, naming both names', () => {
    expect(() => sessionCookie('nso1', 'xsessionid=1; sessionidx=2')).toThrow(
      'Orchestrator "nso1" accepted the JSON-RPC login but set no session cookie (sessionid or sessionid_<port>)',
    );
  });

  it('prefixes bare media types with application/', () => {
    expect(mediaType('vnd.yang.data+json', 'm')).toBe('application/vnd.yang.data+json');
    expect(mediaType(' application/yang-data+json ', 'm')).toBe('application/yang-data+json');
  });
});

describe('calls within the deadline', () => {
  it("bounds each call by the adapter's timeoutMs and what is left of the deadline, and drops a stale record", async () => {
    const sent: number[] = [];
    const stale: string[] = [];
    const orchestrator = new Orchestrator(
      { name: 'nso1', state: 'RUNNING', timeoutMs: 2500 },
      async (input) => {
        sent.push(input.timeoutMs);
        throw new AppError('ADAPTER_NOT_RUNNING', 'stopped');
      },
      Date.now() + 1_500,
      (name) => stale.push(name),
      ROOT_CONTEXT,
    );
    await expect(orchestrator.call({ method: 'GET', path: '/restconf', headers: {} })).rejects.toMatchObject({
      code: 'ADAPTER_NOT_RUNNING',
    });
    expect(sent[0]).toBeLessThanOrEqual(1_000);
    expect(stale).toEqual(['nso1']);
    const late = new Orchestrator(
      { name: 'nso1', state: 'RUNNING' },
      async () => ({ status: 200, headers: {}, body: null }),
      Date.now() + 100,
      () => {},
      ROOT_CONTEXT,
    );
    await expect(late.call({ method: 'GET', path: '/restconf', headers: {} })).rejects.toMatchObject({ code: 'DEVICE_TIMEOUT' });
  });
});
