import type { OperationDef } from '../src/catalog/types';
import { compileOperation, validateAgainst, validateRequest, validateResponse } from '../src/validation';

function op(overrides: Partial<OperationDef>): OperationDef {
  return {
    id: 'test.op',
    service: 'workflow',
    name: 'op',
    summary: 'test',
    roles: ['admin'],
    request: {},
    response: { status: 200 },
    timeoutMs: 1000,
    ...overrides,
  };
}

describe('validation', () => {
  it('stops on a schema that does not compile, naming the operation and part', () => {
    const broken = op({ id: 'test.broken', request: { body: { $id: 'nap:test.broken/body', type: 'objekt' } } });
    expect(() => compileOperation(broken)).toThrow(/Operation test.broken: the body schema does not compile/);
  });

  it('compiles a schema once and reuses it', () => {
    const schema = { $id: 'nap:test.once/body', type: 'object', required: ['a'] };
    const once = op({ id: 'test.once', request: { body: schema } });
    expect(validateRequest(once, { body: {} })).toHaveLength(1);
    // A second compile of the same $id would throw in Ajv ("already exists"); the cache prevents it.
    expect(() => compileOperation(once)).not.toThrow();
    expect(validateRequest(once, { body: { a: 1 } })).toEqual([]);
  });

  it('coerces params and query but never bodies', () => {
    const typed = op({
      id: 'test.typed',
      request: {
        params: { $id: 'nap:test.typed/params', type: 'object', properties: { n: { type: 'integer' } } },
        query: { $id: 'nap:test.typed/query', type: 'object', properties: { flag: { type: 'boolean' } } },
        body: { $id: 'nap:test.typed/body', type: 'object', properties: { n: { type: 'integer' } } },
      },
    });
    const parts = { params: { n: '5' }, query: { flag: 'false' }, body: { n: '5' } };
    expect(validateRequest(typed, parts)).toEqual([{ member: 'body.n', message: 'body.n must be integer', keyword: 'type' }]);
    expect(parts.params.n).toBe(5);
    expect(parts.query.flag).toBe(false);
    expect(parts.body.n).toBe('5');
  });

  it('writes array positions in brackets and keeps member names with dots whole', () => {
    const schema = {
      $id: 'nap:test.paths',
      type: 'object',
      properties: { list: { type: 'array', items: { type: 'object', additionalProperties: { type: 'string' } } } },
    };
    expect(validateAgainst(schema, { list: [{ 'a.b': 'ok' }, { 'c.d': 1 }] })).toEqual([
      { member: 'value.list[1].c.d', message: 'value.list[1].c.d must be string', keyword: 'type' },
    ]);
  });

  it('accepts any response when the operation has no response schema', () => {
    expect(validateResponse(op({ id: 'test.none' }), { anything: true })).toEqual([]);
  });
});
