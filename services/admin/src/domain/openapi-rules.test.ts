import { specFindings } from './openapi-rules';

describe('the rules of the paths that the OpenAPI schema cannot state', () => {
  const ok = { description: 'ok' };

  it('accepts path parameters declared on the operation, on the path item, or through a reference (3.x and 2.0)', () => {
    expect(
      specFindings({
        openapi: '3.0.3',
        components: { parameters: { Id: { name: 'id', in: 'path', required: true, schema: { type: 'string' } } } },
        paths: {
          '/a/{id}': { get: { parameters: [{ $ref: '#/components/parameters/Id' }], responses: { 200: ok } } },
          '/b/{id}/{sub}': {
            parameters: [{ name: 'id', in: 'path', required: true }],
            get: { parameters: [{ name: 'sub', in: 'path', required: true }], responses: { 200: ok } },
          },
        },
      }),
    ).toEqual([]);
    expect(
      specFindings({
        swagger: '2.0',
        parameters: { Id: { name: 'id', in: 'path', required: true, type: 'string' } },
        paths: { '/a/{id}': { get: { parameters: [{ $ref: '#/parameters/Id' }], responses: { 200: ok } } } },
      }),
    ).toEqual([]);
  });

  it('names a template parameter nobody declares, a declared one the template lacks, and a repeated operationId', () => {
    expect(
      specFindings({
        openapi: '3.1.0',
        paths: {
          '/x/{id}': { get: { operationId: 'one', responses: { 200: ok } } },
          '/y': {
            parameters: [{ name: 'gone', in: 'path', required: true }],
            post: { operationId: 'one', parameters: [{ name: 'also', in: 'path', required: true }], responses: { 200: ok } },
          },
        },
      }),
    ).toEqual([
      {
        path: '/paths/~1x~1{id}/get',
        message: 'declares no path parameter "id" for {id} of /x/{id}: a parameter with in: path and name: id is missing',
      },
      { path: '/paths/~1y/post/parameters/0', message: 'is the path parameter "also", but /y has no {also}' },
      { path: '/paths/~1y/post/operationId', message: '"one" is the operationId of GET /x/{id} already: operationIds must be unique' },
      { path: '/paths/~1y/parameters/0', message: 'is the path parameter "gone", but /y has no {gone}' },
    ]);
  });

  it('says nothing of what the schema check reports (paths that are not objects)', () => {
    expect(specFindings({ openapi: '3.0.0', paths: 'none' })).toEqual([]);
    expect(specFindings({ openapi: '3.0.0', paths: { '/a/{id}': 'x' } })).toEqual([]);
  });
});
