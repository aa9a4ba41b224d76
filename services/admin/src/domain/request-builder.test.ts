import { hasCode } from '@nap/contracts';
import { appName, camelCase, methodName } from './method-names';
import { OperationRequestBuilder } from './request-builder';

/** Serialization of parameters by style and explode, as OpenAPI 3 describes it, and the names tasks use. */

function builder(
  parameters: Record<string, unknown>[],
  requestBody?: Record<string, unknown>,
  path = '/items/{id}',
): OperationRequestBuilder {
  return new OperationRequestBuilder(
    { method: 'GET', path, operation: { parameters, ...(requestBody ? { requestBody } : {}), responses: {} } },
    'test.op',
  );
}

describe('method names', () => {
  it('are the HTTP method plus the PascalCase segments below the base path', () => {
    expect(methodName('GET', '/api/v4/projects/{id}/repository/branches/{branch}', '/api')).toBe('getV4ProjectsIdRepositoryBranchesBranch');
    expect(methodName('get', '/api/v4/projects/{id}/merge_requests/{merge_request_iid}/versions', '/api/')).toBe(
      'getV4ProjectsIdMergeRequestsMergeRequestIidVersions',
    );
    expect(methodName('PATCH', '/api/dcim/devices/{id}/', '/api')).toBe('patchDcimDevicesId');
    expect(methodName('POST', '/other/x', '/api')).toBe('postOtherX');
    expect(camelCase('per_page')).toBe('perPage');
    expect(camelCase('X-Request-Id')).toBe('xRequestId');
    expect(appName('GitLab Cloud')).toBe('GitLabCloud');
  });
});

describe('parameters', () => {
  it('serializes path parameters: simple, label and matrix, exploded or not', () => {
    const of = (style: string, explode: boolean, value: unknown) =>
      builder([{ name: 'id', in: 'path', required: true, style, explode, schema: {} }]).build({ id: value }).path;
    expect(of('simple', false, [3, 4, 5])).toBe('/items/3,4,5');
    expect(of('simple', true, { role: 'admin', first: 'Alex' })).toBe('/items/role=admin,first=Alex');
    expect(of('simple', false, { role: 'admin', first: 'Alex' })).toBe('/items/role,admin,first,Alex');
    expect(of('label', false, [3, 4, 5])).toBe('/items/.3,4,5');
    expect(of('label', true, [3, 4, 5])).toBe('/items/.3.4.5');
    expect(of('matrix', false, [3, 4, 5])).toBe('/items/;id=3,4,5');
    expect(of('matrix', true, [3, 4, 5])).toBe('/items/;id=3;id=4;id=5');
    expect(of('simple', false, 'a b/c')).toBe('/items/a%20b%2Fc');
  });

  it('serializes query parameters: form, spaceDelimited, pipeDelimited and deepObject', () => {
    const of = (style: string, explode: boolean, value: unknown) =>
      builder([{ name: 'id', in: 'query', style, explode, schema: {} }], undefined, '/items').build({ id: value }).path;
    expect(of('form', true, [3, 4])).toBe('/items?id=3&id=4');
    expect(of('form', false, [3, 4])).toBe('/items?id=3,4');
    expect(of('form', true, { role: 'admin', first: 'Alex' })).toBe('/items?role=admin&first=Alex');
    expect(of('form', false, { role: 'admin', first: 'Alex' })).toBe('/items?id=role,admin,first,Alex');
    expect(of('spaceDelimited', false, [3, 4])).toBe('/items?id=3%204');
    expect(of('pipeDelimited', false, [3, 4])).toBe('/items?id=3|4');
    expect(of('deepObject', true, { role: 'admin' })).toBe('/items?id%5Brole%5D=admin');
  });

  it('puts header and cookie parameters where they belong, by their camelCase names', () => {
    const b = builder(
      [
        { name: 'X-Request-Id', in: 'header', schema: { type: 'string' } },
        { name: 'session_id', in: 'cookie', schema: { type: 'string' } },
        { name: 'per_page', in: 'query', schema: { type: 'integer' } },
      ],
      undefined,
      '/items',
    );
    expect(b.build({ xRequestId: 'r-1', sessionId: 's 1', perPage: '20' })).toEqual({
      method: 'GET',
      path: '/items?per_page=20',
      headers: { 'x-request-id': 'r-1', cookie: 'session_id=s%201' },
    });
    expect(b.variableNames()).toEqual(['xRequestId', 'sessionId', 'perPage']);
  });

  it('refuses a path parameter that would make a "." or ".." segment, naming it: the call stays on the operation\'s path', () => {
    const b = builder(
      [
        { name: 'project_id', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'file', in: 'path', required: true, schema: { type: 'string' } },
      ],
      undefined,
      '/api/v4/projects/{project_id}/files/{file}',
    );
    for (const [projectId, file, members] of [
      ['..', '..', ['incoming.projectId', 'incoming.file']],
      ['7', '.', ['incoming.file']],
      ['..', 'a', ['incoming.projectId']],
    ] as const) {
      let caught: unknown;
      try {
        b.build({ projectId, file });
      } catch (err) {
        caught = err;
      }
      expect(hasCode(caught, 'TASK_INPUT_INVALID')).toBe(true);
      expect((caught as { details: { member: string }[] }).details.map((d) => d.member)).toEqual(members);
    }
    // dots inside a segment, an encoded "%2e%2e" (sent as %252e%252e) and a "/" (sent as %2F) stay within the path
    expect(b.build({ projectId: '...', file: 'a..b' }).path).toBe('/api/v4/projects/.../files/a..b');
    expect(b.build({ projectId: '%2e%2e', file: '../x' }).path).toBe('/api/v4/projects/%252e%252e/files/..%2Fx');
  });

  it('validates with Ajv before anything is built, naming each variable', () => {
    const b = builder(
      [
        { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
        { name: 'per_page', in: 'query', schema: { type: 'integer', maximum: 100 } },
      ],
      {
        required: true,
        content: { 'application/json': { schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } } },
      },
    );
    let caught: unknown;
    try {
      b.build({ id: 'seven', perPage: 500, body: { name: 7 } });
    } catch (err) {
      caught = err;
    }
    expect(hasCode(caught, 'TASK_INPUT_INVALID')).toBe(true);
    expect((caught as { details: { member: string }[] }).details.map((d) => d.member)).toEqual([
      'incoming.id',
      'incoming.perPage',
      'incoming.body.name',
    ]);
    expect(b.build({ id: '7', body: { name: 'x' } })).toEqual({
      method: 'GET',
      path: '/items/7',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"x"}',
    });
  });

  it('sends form bodies of converted 2.0 documents from variables of their own', () => {
    const b = builder(
      [],
      {
        content: {
          'application/x-www-form-urlencoded': {
            schema: { type: 'object', properties: { branch: { type: 'string' }, ref: { type: 'string' } } },
          },
        },
      },
      '/branches',
    );
    expect(b.build({ branch: 'feature/x', ref: 'main' })).toEqual({
      method: 'GET',
      path: '/branches',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'branch=feature%2Fx&ref=main',
    });
  });
});
