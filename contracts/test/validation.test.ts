import { existsSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { getOperation } from '../src/catalog';
import type { JsonSchema, OperationDef } from '../src/catalog/types';
import { PRECOMPILED_INDEX_FILE, precompiledValidator, validatorKey } from '../src/precompiled-validators';
import type { ValidatorOptions } from '../src/precompiled-validators';
import {
  BODY_VALIDATOR_OPTIONS,
  INPUT_VALIDATOR_OPTIONS,
  MAX_MISSPELLED_MEMBERS,
  closestName,
  compileOperation,
  isPrecompiled,
  misspelledMembers,
  spellingBudget,
  validateAgainst,
  validateRequest,
  validateResponse,
} from '../src/validation';
import { sshSendCommand } from './operation-examples';

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
    // a query schema too, though the platform compiles those without the meta-schema check
    const brokenQuery = op({
      id: 'test.brokenQuery',
      request: { query: { type: 'object', properties: { q: { type: 'string', maxLength: -1 } } } },
    });
    expect(() => compileOperation(brokenQuery)).toThrow(/Operation test.brokenQuery: the query schema does not compile/);
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

  it('refuses a value that may also be null once, saying that null would do', () => {
    const schema = {
      $id: 'nap:test.nullable',
      type: 'object',
      properties: { unit: { anyOf: [{ type: 'string', enum: ['hour', 'day'] }, { type: 'null' }] } },
    };
    expect(validateAgainst(schema, { unit: 'fortnight' }, 'body')).toEqual([
      { member: 'body.unit', message: "body.unit must be one of 'hour', 'day', or null", keyword: 'enum' },
    ]);
    expect(validateAgainst(schema, { unit: null }, 'body')).toEqual([]);
  });

  it('says to put the members of a missing wrapper inside it', () => {
    const schema = {
      $id: 'nap:test.wrapper',
      type: 'object',
      required: ['role'],
      additionalProperties: false,
      properties: { role: { type: 'object', properties: { name: { type: 'string' }, allowedMethods: { type: 'array' } } } },
    };
    const problems = validateAgainst(schema, { name: 'job-reader', allowedMethods: [] }, 'body');
    expect(problems[0]).toEqual({
      member: 'body.role',
      message: `body must have required property 'role': 'name', 'allowedMethods' go inside it ({"role": {"name": …, "allowedMethods": …}})`,
      keyword: 'required',
    });
    expect(problems.map((p) => p.member)).toEqual(['body.role', 'body.name', 'body.allowedMethods']);
    // a stray member the wrapper does not have either is only refused
    expect(validateAgainst(schema, { colour: 'red' }, 'body')[0]?.message).toBe("body must have required property 'role'");
  });

  it('says that a stray member goes inside the one member that holds free-form ones', () => {
    const schema = {
      $id: 'nap:test.lone-wrapper',
      type: 'object',
      additionalProperties: false,
      properties: { formData: { type: 'object' } },
    };
    expect(validateAgainst(schema, { device: 'core-1' }, 'body')).toEqual([
      {
        member: 'body.device',
        message: `body must NOT have additional property 'device': it goes inside 'formData' ({"formData": {"device": …}})`,
        keyword: 'additionalProperties',
      },
    ]);
    // beside the wrapper, a stray member is only refused
    expect(validateAgainst(schema, { formData: {}, device: 'core-1' }, 'body')[0]?.message).toBe(
      "body must NOT have additional property 'device'",
    );
  });

  it('says which member a misspelled one was meant to be', () => {
    const schema = {
      $id: 'nap:test.misspelled',
      type: 'object',
      additionalProperties: false,
      properties: { variables: { type: 'object' }, groups: { type: 'array' }, formData: { type: 'object' } },
    };
    expect(validateAgainst(schema, { varibles: {}, Groups: [], colour: 'red' }, 'body')).toEqual([
      {
        member: 'body.varibles',
        message: "body must NOT have additional property 'varibles': did you mean 'variables'?",
        keyword: 'additionalProperties',
      },
      {
        member: 'body.Groups',
        message: "body must NOT have additional property 'Groups': did you mean 'groups'?",
        keyword: 'additionalProperties',
      },
      { member: 'body.colour', message: "body must NOT have additional property 'colour'", keyword: 'additionalProperties' },
    ]);
    const lone = { ...schema, $id: 'nap:test.misspelled-wrapper', properties: { formData: { type: 'object' } } };
    // the wrapper misspelled is not a member to put inside it
    expect(validateAgainst(lone, { formDta: {} }, 'body')[0]?.message).toBe(
      "body must NOT have additional property 'formDta': did you mean 'formData'?",
    );
  });

  it('says which member of an open object a misspelled one was meant to be, where validation lets it pass', () => {
    const schema = {
      $id: 'nap:test.misspelled-open',
      type: 'object',
      required: ['template'],
      properties: {
        template: { type: 'string' },
        variables: { type: 'object' },
        options: { type: 'object', properties: { extractOutput: { type: 'boolean' } } },
        closed: { type: 'object', additionalProperties: false, properties: { name: { type: 'string' } } },
      },
    };
    // validation takes the open object's members as they are: the misspelled ones would be ignored
    expect(validateAgainst(schema, { template: 't', varibles: {}, options: { ExtractOutput: true } }, 'body')).toEqual([]);
    expect(
      misspelledMembers(
        schema,
        { template: 't', varibles: {}, options: { ExtractOutput: true, colour: 1 }, origin: 'ipctl', closed: { nme: 1 } },
        'body',
      ),
    ).toEqual([
      {
        member: 'body.varibles',
        message: "body.varibles is no member of body (it would be ignored): did you mean 'variables'?",
        keyword: 'additionalProperties',
      },
      {
        member: 'body.options.ExtractOutput',
        message: "body.options.ExtractOutput is no member of body.options (it would be ignored): did you mean 'extractOutput'?",
        keyword: 'additionalProperties',
      },
    ]);
    // beside the member it resembles, a member is no misspelling: nothing would be missing
    expect(misspelledMembers(schema, { template: 't', variables: {}, Variables: {} }, 'body')).toEqual([]);
    // a required member misspelled: the required problem names the member given
    expect(validateAgainst(schema, { tempalte: 't' }, 'body')[0]?.message).toBe(
      "body must have required property 'template' (it has 'tempalte': did you mean 'template'?)",
    );
    expect(validateAgainst(schema, { colour: 't' }, 'body')[0]?.message).toBe("body must have required property 'template'");
  });

  it('bounds the spelling checks: the comparisons of one check, and the problems answered', () => {
    // a check takes its comparisons from a budget, and gives no hint once it is spent
    expect(closestName('varibles', ['variables'])).toBe('variables');
    const small = spellingBudget(50);
    expect(closestName('varibles', ['variables'], small)).toBeUndefined();
    expect(small.cells).toBe(0);
    // two names of 50,000 characters one edit apart: 2.5 billion cells of the edit-distance table, not compared
    const long = 'n'.repeat(50_000);
    expect(misspelledMembers({ type: 'object', properties: { [long]: {} } }, { [`${long.slice(1)}m`]: 1 }, 'body')).toEqual([]);
    // a body of many misspelled members is told of the first ones
    const properties = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`member${100 + i}`, {}]));
    const body = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`Member${100 + i}`, 1]));
    const problems = misspelledMembers({ type: 'object', properties }, body, 'body');
    expect(problems).toHaveLength(MAX_MISSPELLED_MEMBERS);
    expect(problems[0]?.message).toBe("body.Member100 is no member of body (it would be ignored): did you mean 'member100'?");
  });

  it('says how to name the field of a field-wise query filter given as plain text', () => {
    const listed = op({
      id: 'test.fieldwise',
      request: {
        query: {
          $id: 'nap:test.fieldwise/query',
          type: 'object',
          properties: { equals: { type: 'object', additionalProperties: { type: 'string' } }, page: { type: 'object', properties: {} } },
        },
      },
    });
    expect(validateRequest(listed, { query: { equals: 'error' } })).toEqual([
      { member: 'query.equals', message: 'query.equals must name the field it filters: equals[<field>]=<value>', keyword: 'type' },
    ]);
    expect(validateRequest(listed, { query: { equals: { status: 'error' } } })).toEqual([]);
    // an object that is no map of fields keeps the plain answer
    expect(validateRequest(listed, { query: { page: 'x' } })[0]?.message).toBe('query.page must be object');
  });

  it('accepts any response when the operation has no response schema', () => {
    expect(validateResponse(op({ id: 'test.none' }), { anything: true })).toEqual([]);
  });
});

describe('validators generated at build time', () => {
  const dir = path.resolve(__dirname, '..', 'dist', 'precompiled');
  const ssh = getOperation('gateway-devices.sshSendCommand');
  const review = getOperation('mop.reviewSummary');
  const runs = getOperation('mop.getTemplateRuns');

  beforeAll(() => {
    if (!existsSync(path.join(dir, PRECOMPILED_INDEX_FILE)))
      throw new Error(`${dir} is missing: run \`npm run build\` in contracts (npm test builds first)`);
  });

  function compiledNow(schema: JsonSchema, options: ValidatorOptions): ValidateFunction {
    const ajv = new Ajv({ ...options.ajv });
    if (options.formats) addFormats(ajv);
    return ajv.compile(schema);
  }

  /** What validating a copy of `data` answers and leaves in the copy (defaults, coerced values). */
  function outcome(validate: ValidateFunction, data: unknown): { valid: boolean; errors: unknown; data: unknown } {
    const copy = structuredClone(data);
    const valid = validate(copy);
    return { valid, errors: validate.errors, data: copy };
  }

  it('validates the catalog schemas with their generated validators, filling in defaults and coercing', () => {
    const body = structuredClone(sshSendCommand);
    expect(validateRequest(ssh, { body })).toEqual([]);
    expect(body.sshSendCommandParameters.connection_options.port).toBe(22);
    const query: Record<string, unknown> = { jobId: 'job-1', taskId: 'a1', download: 'true' };
    expect(validateRequest(review, { query })).toEqual([]);
    expect(query.download).toBe(true);
    expect(isPrecompiled(ssh.request.body as JsonSchema)).toBe(true);
    expect(isPrecompiled(review.request.query as JsonSchema)).toBe(true);
  });

  it.each([
    ['a valid body, a default filled in', ssh.request.body, BODY_VALIDATOR_OPTIONS, sshSendCommand, true],
    [
      'an invalid body',
      ssh.request.body,
      BODY_VALIDATOR_OPTIONS,
      { sshSendCommandParameters: { host: 1, commands: 'show version', connection_options: { port: 'ssh' } }, extra: 1 },
      false,
    ],
    ['a valid query, its numbers coerced', runs.request.query, INPUT_VALIDATOR_OPTIONS, { limit: '10', order: '-1' }, true],
    ['an invalid query', runs.request.query, INPUT_VALIDATOR_OPTIONS, { limit: '-1', order: '2', kind: 'other', equals: 3 }, false],
    ['a query missing members', review.request.query, INPUT_VALIDATOR_OPTIONS, { jobId: '', download: 'maybe', extra: 'x' }, false],
  ])('answers as a compile at run time would for %s', (_name, schema, options, data, valid) => {
    const generated = precompiledValidator(dir, schema as JsonSchema, options);
    expect(generated).toBeDefined();
    const answer = outcome(generated as ValidateFunction, data);
    expect(answer.valid).toBe(valid);
    expect(answer).toEqual(outcome(compiledNow(schema as JsonSchema, options), data));
  });

  it('compiles at run time a schema changed since the build', () => {
    const changed = structuredClone(review.request.query) as JsonSchema & { properties: { download: { default: boolean } } };
    changed.properties.download.default = true;
    expect(precompiledValidator(dir, changed, INPUT_VALIDATOR_OPTIONS)).toBeUndefined();
    const query: Record<string, unknown> = { jobId: 'job-1', taskId: 'a1' };
    expect(validateRequest(op({ id: 'test.changed', request: { query: changed } }), { query })).toEqual([]);
    expect(query.download).toBe(true);
    expect(isPrecompiled(changed)).toBe(false);
  });

  it('keys a validator by the schema as JSON and the options', () => {
    const schema = review.request.query as JsonSchema;
    const reordered = Object.fromEntries(Object.entries(structuredClone(schema)).reverse());
    expect(validatorKey(reordered, INPUT_VALIDATOR_OPTIONS)).toBe(validatorKey(schema, INPUT_VALIDATOR_OPTIONS));
    expect(validatorKey(schema, BODY_VALIDATOR_OPTIONS)).not.toBe(validatorKey(schema, INPUT_VALIDATOR_OPTIONS));
    // the same schema with the body options (no coercion) was never generated
    expect(precompiledValidator(dir, schema, BODY_VALIDATOR_OPTIONS)).toBeUndefined();
  });
});
