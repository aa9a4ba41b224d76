import { isAppError } from '@nap/contracts';
import { compileTransformation, createInlineRegexRunner, migrateTransformation, runTransformationPlan } from '.';
import type { RunDeps, RunOptions } from '.';

/** Small documents in the shape of real ones: each pins one rule of the JST semantics. */

type Step = Record<string, unknown>;
const regex = createInlineRegexRunner();

function doc(
  incoming: string[],
  outgoing: (string | Record<string, unknown>)[],
  steps: Step[],
  functions: Record<string, unknown>[] = [],
): Record<string, unknown> {
  return {
    name: 'test',
    incoming: incoming.map((id) => ({ $id: id, type: ['string', 'number', 'object', 'array', 'boolean', 'null'] })),
    outgoing: outgoing.map((o) => (typeof o === 'string' ? { $id: o } : o)),
    steps,
    functions,
  };
}

const assign = (id: number, from: [string, string | number, string], to: [string, string | number, string], context?: string): Step => ({
  id,
  type: 'assign',
  from: { location: from[0], name: from[1], ptr: from[2] },
  to: { location: to[0], name: to[1], ptr: to[2] },
  ...(context === undefined ? {} : { context }),
});
const method = (id: number, library: string, name: string, args: unknown[], extra: Step = {}): Step => ({
  id,
  type: 'method',
  library,
  method: name,
  args,
  ...extra,
});
const arg = (n: number) => `/args/${n}/value`;

function run(
  d: Record<string, unknown>,
  incoming: Record<string, unknown> = {},
  options: RunOptions = {},
  deps: Partial<RunDeps> = {},
): unknown {
  const { doc: migrated, errors } = migrateTransformation(d);
  if (errors.length > 0) throw new Error(`refused: ${errors.map((e) => e.message).join('; ')}`);
  const compiled = compileTransformation(migrated);
  if (!compiled.plan) throw new Error(`does not compile: ${JSON.stringify(compiled.errors)}`);
  return runTransformationPlan(compiled.plan, incoming, options, { regex, ...deps });
}

function thrown(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (err) {
    if (isAppError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('did not throw');
}

describe('JST data flow', () => {
  it('runs steps in data-flow order, not array order, and keys the result by outgoing $id in schema order', () => {
    const d = doc(
      ['a'],
      ['second', 'first'],
      [
        assign(10, ['method', 2, '/return'], ['outgoing', 'first', '']),
        method(2, 'String', 'toUpperCase', [null]),
        assign(11, ['method', 1, '/return'], ['method', 2, arg(0)]),
        method(1, 'String', 'concat', [null, '-x']),
        assign(12, ['incoming', 'a', ''], ['method', 1, arg(0)]),
        assign(13, ['incoming', 'a', ''], ['outgoing', 'second', '']),
      ],
    );
    const out = run(d, { a: 'ab' });
    expect(out).toEqual({ second: 'ab', first: 'AB-X' });
    expect(Object.keys(out as object)).toEqual(['second', 'first']);
  });

  it('starts arguments from static args, assigns overwrite /args/N/value, null is omitted (undefined)', () => {
    const d = doc(
      ['s'],
      ['parts', 'joined'],
      [
        method(1, 'String', 'split', [null, ',', null]),
        assign(2, ['incoming', 's', ''], ['method', 1, arg(0)]),
        assign(3, ['method', 1, '/return'], ['outgoing', 'parts', '']),
        // a null separator is omitted: join uses its default ","
        method(4, 'Array', 'join', [null, null]),
        assign(5, ['method', 1, '/return'], ['method', 4, arg(0)]),
        assign(6, ['method', 4, '/return'], ['outgoing', 'joined', '']),
      ],
    );
    expect(run(d, { s: 'a,b,c' })).toEqual({ parts: ['a', 'b', 'c'], joined: 'a,b,c' });
  });

  it('reads and writes through JSON Pointers, building outgoing objects member by member', () => {
    const d = doc(
      ['dev'],
      ['out'],
      [
        assign(1, ['incoming', 'dev', '/interfaces/0/name'], ['outgoing', 'out', '/first/name']),
        assign(2, ['incoming', 'dev', '/host~1name'], ['outgoing', 'out', '/host']),
      ],
    );
    expect(run(d, { dev: { 'host/name': 'r1', interfaces: [{ name: 'ge-0/0/0' }] } })).toEqual({
      out: { first: { name: 'ge-0/0/0' }, host: 'r1' },
    });
  });

  it('answers copies from methods that change arrays and objects in JavaScript', () => {
    const d = doc(
      ['arr', 'obj'],
      ['pushed', 'popped', 'shifted', 'spliced', 'set', 'original', 'originalObj', 'deleted'],
      [
        method(1, 'Array', 'push', [null, 4]),
        method(2, 'Array', 'pop', [null]),
        method(3, 'Array', 'shift', [null]),
        method(4, 'Array', 'splice', [null, 1, 1, 'x']),
        method(5, 'Object', 'setProperty', [null, 'b', 2]),
        method(6, 'Object', 'deleteProperty', [null, 'a']),
        ...[1, 2, 3, 4].map((n) => assign(10 + n, ['incoming', 'arr', ''], ['method', n, arg(0)])),
        assign(15, ['incoming', 'obj', ''], ['method', 5, arg(0)]),
        assign(16, ['incoming', 'obj', ''], ['method', 6, arg(0)]),
        assign(21, ['method', 1, '/return'], ['outgoing', 'pushed', '']),
        assign(22, ['method', 2, '/return'], ['outgoing', 'popped', '']),
        assign(23, ['method', 3, '/return'], ['outgoing', 'shifted', '']),
        assign(24, ['method', 4, '/return'], ['outgoing', 'spliced', '']),
        assign(25, ['method', 5, '/return'], ['outgoing', 'set', '']),
        assign(26, ['incoming', 'arr', ''], ['outgoing', 'original', '']),
        assign(27, ['incoming', 'obj', ''], ['outgoing', 'originalObj', '']),
        assign(28, ['method', 6, '/return'], ['outgoing', 'deleted', '']),
      ],
    );
    const arr = [1, 2, 3];
    const obj = { a: 1 };
    expect(run(d, { arr, obj })).toEqual({
      pushed: [1, 2, 3, 4],
      popped: { value: 3, array: [1, 2] },
      shifted: { value: 1, array: [2, 3] },
      spliced: { array: [1, 'x', 3], spliced: [2] },
      set: { a: 1, b: 2 },
      original: [1, 2, 3],
      originalObj: { a: 1 },
      deleted: {},
    });
    expect(arr).toEqual([1, 2, 3]);
    expect(obj).toEqual({ a: 1 });
  });

  it('declares with polymorphIndex choosing the overload, and answers primitives for wrappers', () => {
    const d = doc(
      ['n'],
      ['elements', 'sized', 'number', 'bool', 'text', 'obj', 'date'],
      [
        { id: 1, type: 'declaration', library: 'Array', method: 'new Array', args: [3], polymorphIndex: 0 },
        { id: 2, type: 'declaration', library: 'Array', method: 'new Array', args: [null], polymorphIndex: 1 },
        assign(3, ['incoming', 'n', ''], ['declaration', 2, arg(0)]),
        { id: 4, type: 'declaration', library: 'Number', method: 'new Number', args: ['42'] },
        { id: 5, type: 'declaration', library: 'Boolean', method: 'new Boolean', args: ['1'] },
        { id: 6, type: 'declaration', library: 'String', method: 'new String', args: [7] },
        { id: 7, type: 'declaration', library: 'Object', method: 'new Object', args: ['{ "name": "" }'] },
        { id: 8, type: 'declaration', library: 'Date', method: 'new Date', args: ['2024-02-29T10:00:00Z'], polymorphIndex: 2 },
        ...[1, 2, 4, 5, 6, 7, 8].map((n, i) =>
          assign(
            20 + n,
            ['declaration', n, '/return'],
            ['outgoing', ['elements', 'sized', 'number', 'bool', 'text', 'obj', 'date'][i] as string, ''],
          ),
        ),
      ],
    );
    expect(run(d, { n: 2 })).toEqual({
      elements: [3],
      sized: [null, null],
      number: 42,
      bool: true,
      text: '7',
      obj: { name: '' },
      date: '2024-02-29T10:00:00.000Z',
    });
  });

  it('fills template literals: args[i] fills the i-th distinct ${name}', () => {
    const d = doc(
      ['dev', 'acl'],
      ['line'],
      [
        {
          id: 1,
          type: 'template',
          library: 'String',
          method: 'templateLiteral',
          template: '${acl} on ${dev}: clear ${acl}',
          args: [null, null],
        },
        assign(2, ['incoming', 'acl', ''], ['template', 1, arg(0)]),
        assign(3, ['incoming', 'dev', ''], ['template', 1, arg(1)]),
        assign(4, ['template', 1, '/return'], ['outgoing', 'line', '']),
      ],
    );
    expect(run(d, { dev: 'r1', acl: 'OUT' })).toEqual({ line: 'OUT on r1: clear OUT' });
  });

  it('calls user functions by id from one flat table, answering an object keyed by their outgoing $ids', () => {
    const pair = {
      id: 'fn-pair',
      name: 'a name that steps do not use',
      incoming: [{ $id: 'k' }, { $id: 'v' }],
      outgoing: [{ $id: 'pair' }, { $id: 'key' }],
      steps: [
        assign(1, ['incoming', 'k', ''], ['outgoing', 'pair', '/Key']),
        assign(2, ['incoming', 'v', ''], ['outgoing', 'pair', '/Value']),
        assign(3, ['incoming', 'k', ''], ['outgoing', 'key', '']),
      ],
      functions: [],
    };
    const d = doc(
      ['v'],
      ['tag', 'key'],
      [
        { id: 1, type: 'function', function: 'fn-pair', args: ['Name', null] },
        assign(2, ['incoming', 'v', ''], ['function', 1, arg(1)]),
        assign(3, ['function', 1, '/return/pair'], ['outgoing', 'tag', '']),
        assign(4, ['function', 1, '/return/key'], ['outgoing', 'key', '']),
      ],
      [pair],
    );
    expect(run(d, { v: 'web-1' })).toEqual({ tag: { Key: 'Name', Value: 'web-1' }, key: 'Name' });
  });

  it('gives callbacks currentValue, index, array and constantValue1..N (reduce: accumulator first)', () => {
    const addSuffix = {
      id: 'cb-map',
      name: 'addSuffix',
      incoming: [{ $id: 'currentValue' }, { $id: 'index' }, { $id: 'array' }, { $id: 'constantValue1' }],
      outgoing: [{ $id: 'newValue' }],
      steps: [
        {
          id: 1,
          type: 'template',
          library: 'String',
          method: 'templateLiteral',
          template: '${v}${s}#${i}/${n}',
          args: [null, null, null, null],
        },
        assign(2, ['incoming', 'currentValue', ''], ['template', 1, arg(0)]),
        assign(3, ['incoming', 'constantValue1', ''], ['template', 1, arg(1)]),
        assign(4, ['incoming', 'index', ''], ['template', 1, arg(2)]),
        assign(5, ['incoming', 'array', '/length'], ['template', 1, arg(3)]),
        assign(6, ['template', 1, '/return'], ['outgoing', 'newValue', '']),
      ],
      functions: [],
    };
    const sum = {
      id: 'cb-sum',
      name: 'sum',
      incoming: [{ $id: 'accumulator' }, { $id: 'currentValue' }, { $id: 'index' }, { $id: 'array' }, { $id: 'constantValue1' }],
      outgoing: [{ $id: 'accumulator' }],
      steps: [
        method(1, 'Math', 'add', [null, null]),
        method(2, 'Math', 'multiply', [null, null]),
        assign(3, ['incoming', 'currentValue', ''], ['method', 2, arg(0)]),
        assign(4, ['incoming', 'constantValue1', ''], ['method', 2, arg(1)]),
        assign(5, ['incoming', 'accumulator', ''], ['method', 1, arg(0)]),
        assign(6, ['method', 2, '/return'], ['method', 1, arg(1)]),
        assign(7, ['method', 1, '/return'], ['outgoing', 'accumulator', '']),
      ],
      functions: [],
    };
    const isBig = {
      id: 'cb-filter',
      name: 'isBig',
      incoming: [{ $id: 'element' }, { $id: 'index' }, { $id: 'array' }, { $id: 'constantValue1' }],
      outgoing: [{ $id: 'return' }],
      steps: [
        method(1, 'Relational', 'greaterThan', [null, null]),
        assign(2, ['incoming', 'element', ''], ['method', 1, arg(0)]),
        assign(3, ['incoming', 'constantValue1', ''], ['method', 1, arg(1)]),
        assign(4, ['method', 1, '/return'], ['outgoing', 'return', '']),
      ],
      functions: [],
    };
    const d = doc(
      ['xs'],
      ['mapped', 'total', 'big', 'found'],
      [
        method(1, 'Array', 'map', [null, 'cb-map', '!']),
        method(2, 'Array', 'reduce', [null, 'cb-sum', 100, 10]),
        method(3, 'Array', 'filter', [null, 'cb-filter', 1]),
        method(4, 'Array', 'find', [null, 'cb-filter', 2]),
        ...[1, 2, 3, 4].map((n) => assign(10 + n, ['incoming', 'xs', ''], ['method', n, arg(0)])),
        ...['mapped', 'total', 'big', 'found'].map((o, i) => assign(20 + i, ['method', i + 1, '/return'], ['outgoing', o, ''])),
      ],
      [addSuffix, sum, isBig],
    );
    expect(run(d, { xs: [1, 2, 3] })).toEqual({ mapped: ['1!#0/3', '2!#1/3', '3!#2/3'], total: 160, big: [2, 3], found: 3 });
  });

  it('migrates callbacks saved with thisArg to constantValue1, also where an older release dropped the schema', () => {
    const withSchema = {
      id: 'old',
      name: 'old',
      incoming: [{ $id: 'element' }, { $id: 'index' }, { $id: 'array' }, { $id: 'thisArg', type: 'object' }],
      outgoing: [{ $id: 'return' }],
      steps: [
        method(1, 'Equality', 'equality', [null, null]),
        assign(2, ['incoming', 'element', '/name'], ['method', 1, arg(0)]),
        assign(3, ['incoming', 'thisArg', '/wanted'], ['method', 1, arg(1)]),
        assign(4, ['method', 1, '/return'], ['outgoing', 'return', '']),
      ],
      functions: [],
    };
    const dropped = { ...withSchema, id: 'dropped', incoming: withSchema.incoming.slice(0, 3) };
    const d = doc(
      ['items'],
      ['a', 'b'],
      [
        method(1, 'Array', 'find', [null, 'old', { wanted: 'y' }]),
        method(2, 'Array', 'find', [null, 'dropped', { wanted: 'x' }]),
        assign(3, ['incoming', 'items', ''], ['method', 1, arg(0)]),
        assign(4, ['incoming', 'items', ''], ['method', 2, arg(0)]),
        assign(5, ['method', 1, '/return/id'], ['outgoing', 'a', '']),
        assign(6, ['method', 2, '/return/id'], ['outgoing', 'b', '']),
      ],
      [withSchema, dropped],
    );
    const { doc: migrated, migrated: which } = migrateTransformation(d);
    expect(which).toEqual([
      { function: 'old', to: 'constantValue1' },
      { function: 'dropped', to: 'constantValue1' },
    ]);
    expect(JSON.stringify(migrated)).not.toContain('thisArg');
    expect(
      run(d, {
        items: [
          { name: 'x', id: 1 },
          { name: 'y', id: 2 },
        ],
      }),
    ).toEqual({ a: 2, b: 1 });
  });

  it('gates steps and assigns on a Conditional.switch case ("#/24[2]"); gated-out steps never run', () => {
    const d = doc(
      ['v'],
      ['kind', 'text'],
      [
        { id: 24, type: 'context', library: 'Conditional', method: 'switch', args: [null], return: ['string', 'object'] },
        method(26, 'JSON', 'type of', [null]),
        assign(27, ['incoming', 'v', ''], ['method', 26, arg(0)]),
        assign(28, ['method', 26, '/return'], ['context', 24, arg(0)]),
        assign(29, ['method', 26, '/return'], ['outgoing', 'kind', '']),
        method(6, 'Array', 'join', [null, '+'], { context: '#/24[2]' }),
        assign(30, ['incoming', 'v', ''], ['method', 6, arg(0)]),
        assign(31, ['context', 24, '/return/case_2'], ['method', 6, '/context'], '#/24[2]'),
        assign(32, ['method', 6, '/return'], ['outgoing', 'text', ''], '#/24[2]'),
        { id: 33, type: 'declaration', library: 'String', method: 'new String', args: [null], context: '#/24[1]' },
        assign(34, ['incoming', 'v', ''], ['declaration', 33, arg(0)]),
        assign(35, ['declaration', 33, '/return'], ['outgoing', 'text', ''], '#/24[1]'),
      ],
    );
    expect(run(d, { v: 'plain' })).toEqual({ kind: 'string', text: 'plain' });
    // the join step would fail on a string: it must not run when case 2 did not match
    expect(run(d, { v: ['a', 'b'] })).toEqual({ kind: 'object', text: 'a+b' });
    expect(run(d, { v: 42 })).toEqual({ kind: 'number' });
  });

  it('answers the bare value with extractOutput when there is one outgoing schema', () => {
    const d = doc(['a'], ['only'], [assign(1, ['incoming', 'a', '/x'], ['outgoing', 'only', ''])]);
    expect(run(d, { a: { x: [1] } }, { extractOutput: true })).toEqual([1]);
    expect(run(d, { a: {} }, { extractOutput: true })).toBeNull();
    const two = doc(['a'], ['one', 'two'], [assign(1, ['incoming', 'a', ''], ['outgoing', 'one', ''])]);
    expect(run(two, { a: 5 }, { extractOutput: true })).toEqual({ one: 5 });
  });

  it('uses schema defaults for missing incoming values and unassigned outgoing ones with revertToDefaultValue', () => {
    const d = {
      name: 'defaults',
      incoming: [{ $id: 'site', type: 'string', default: 'ams1' }],
      outgoing: [
        { $id: 'label', type: 'string' },
        { $id: 'status', type: 'string', default: 'unknown' },
      ],
      steps: [
        method(1, 'String', 'concat', ['site-', null]),
        assign(2, ['incoming', 'site', ''], ['method', 1, arg(1)]),
        assign(3, ['method', 1, '/return'], ['outgoing', 'label', '']),
      ],
      functions: [],
    };
    expect(run(d, {}, { revertToDefaultValue: true })).toEqual({ label: 'site-ams1', status: 'unknown' });
    expect(run(d, {}, {})).toEqual({ label: 'site-undefined' });
  });

  it('checks incoming values against their schemas with validateIncoming, naming the field', () => {
    const d = {
      name: 'typed',
      incoming: [{ $id: 'port', type: 'integer' }],
      outgoing: [{ $id: 'port' }],
      steps: [assign(1, ['incoming', 'port', ''], ['outgoing', 'port', ''])],
      functions: [],
    };
    const validateIncoming = (schema: Record<string, unknown>, value: unknown) =>
      schema.type === 'integer' && !Number.isInteger(value) ? 'must be integer' : undefined;
    expect(thrown(() => run(d, { port: 'x' }, { validateIncoming: true }, { validateIncoming }))).toEqual({
      code: 'TRANSFORMATION_INCOMING_INVALID',
      message: 'Incoming "port" of transformation "typed" must be integer',
    });
    expect(run(d, { port: 'x' }, {}, { validateIncoming })).toEqual({ port: 'x' });
  });

  it('queries with the json-query dialect of the workflow query task (WorkFlowEngine.query)', () => {
    const d = doc(
      ['m'],
      ['workflows'],
      [
        method(1, 'WorkFlowEngine', 'query', [true, 'artifacts.[*type=workflow].name', null]),
        assign(2, ['incoming', 'm', ''], ['method', 1, arg(2)]),
        assign(3, ['method', 1, '/return'], ['outgoing', 'workflows', '']),
      ],
    );
    expect(
      run(d, {
        m: {
          artifacts: [
            { type: 'workflow', name: 'a' },
            { type: 'form', name: 'b' },
            { type: 'workflow', name: 'c' },
          ],
        },
      }),
    ).toEqual({ workflows: ['a', 'c'] });
  });
});

describe('JST checks and bounds', () => {
  it('refuses an unknown method at compile time, naming the step and its path; reports every problem', () => {
    const d = doc(
      ['a'],
      ['b'],
      [
        method(7, 'String', 'eval', [null]),
        method(8, 'Array', 'map', [null, 'nope']),
        assign(9, ['method', 99, '/return'], ['outgoing', 'b', '']),
      ],
    );
    const { errors, plan } = compileTransformation(d);
    expect(plan).toBeUndefined();
    expect(errors).toEqual([
      { code: 'UNKNOWN_METHOD', message: 'step 7 calls String.eval, which is not a method of the library', path: '/steps/0' },
      {
        code: 'UNKNOWN_FUNCTION',
        message: 'step 8 (Array.map) calls back function "nope", which is not in the functions table',
        path: '/steps/1/args/1',
      },
      { code: 'BAD_ASSIGN', message: 'assign 9 reads step 99, which does not exist or cannot run', path: '/steps/2/from/name' },
    ]);
  });

  it('refuses a cycle of assigns', () => {
    const d = doc(
      [],
      ['o'],
      [
        method(1, 'String', 'trim', [null]),
        method(2, 'String', 'trim', [null]),
        assign(3, ['method', 1, '/return'], ['method', 2, arg(0)]),
        assign(4, ['method', 2, '/return'], ['method', 1, arg(0)]),
      ],
    );
    expect(compileTransformation(d).errors.map((e) => e.code)).toEqual(['CYCLE']);
  });

  it('names the step id and method when a step fails', () => {
    const d = doc(
      ['a'],
      ['b'],
      [
        method(12, 'Array', 'join', [null, ',']),
        assign(1, ['incoming', 'a', ''], ['method', 12, arg(0)]),
        assign(2, ['method', 12, '/return'], ['outgoing', 'b', '']),
      ],
    );
    expect(thrown(() => run(d, { a: 'not an array' }))).toEqual({
      code: 'TRANSFORMATION_STEP_FAILED',
      message: 'The transformation failed at step 12 (Array.join): argument 1 (array) must be an array, not string',
    });
    // a step that fails reading an incoming value the run was not given says so
    expect(thrown(() => run(d, {}))).toEqual({
      code: 'TRANSFORMATION_STEP_FAILED',
      message:
        'The transformation failed at step 12 (Array.join): argument 1 (array) must be an array, not undefined (incoming "a" was not given)',
    });
  });

  it('stops a run past its step budget, its time, or its value size, naming the limit and the step', () => {
    const loop = {
      id: 'again',
      name: 'again',
      incoming: [{ $id: 'n' }],
      outgoing: [{ $id: 'out' }],
      steps: [
        { id: 1, type: 'function', function: 'again', args: [null] },
        assign(2, ['incoming', 'n', ''], ['function', 1, arg(0)]),
        assign(3, ['function', 1, '/return/out'], ['outgoing', 'out', '']),
      ],
      functions: [],
    };
    const recursive = doc(
      ['n'],
      ['out'],
      [{ id: 1, type: 'function', function: 'again', args: [null] }, assign(2, ['function', 1, '/return/out'], ['outgoing', 'out', ''])],
      [loop],
    );
    expect(thrown(() => run(recursive, { n: 1 }))).toMatchObject({
      code: 'TRANSFORMATION_LIMIT_EXCEEDED',
      message: expect.stringContaining('functions call each other more than 64 deep'),
    });

    const many = doc(
      ['xs'],
      ['ys'],
      [
        method(1, 'Array', 'map', [null, 'id']),
        assign(2, ['incoming', 'xs', ''], ['method', 1, arg(0)]),
        assign(3, ['method', 1, '/return'], ['outgoing', 'ys', '']),
      ],
      [
        {
          id: 'id',
          name: 'id',
          incoming: [{ $id: 'currentValue' }],
          outgoing: [{ $id: 'newValue' }],
          steps: [
            method(1, 'Math', 'add', [null, 1]),
            assign(2, ['incoming', 'currentValue', ''], ['method', 1, arg(0)]),
            assign(3, ['method', 1, '/return'], ['outgoing', 'newValue', '']),
          ],
          functions: [],
        },
      ],
    );
    const xs = Array.from({ length: 5_000 }, (_, i) => i);
    expect(thrown(() => run(many, { xs }, {}, { limits: { maxSteps: 1_000 } }))).toEqual({
      code: 'TRANSFORMATION_LIMIT_EXCEEDED',
      message: 'The run went past its budget of 1000 steps (at step 1 (Math.add) of function "id")',
    });
    expect(thrown(() => run(many, { xs: Array.from({ length: 200_000 }, (_, i) => i) }, {}, { limits: { timeoutMs: 1 } }))).toMatchObject({
      code: 'TRANSFORMATION_LIMIT_EXCEEDED',
      message: expect.stringContaining('took longer than 1 ms'),
    });

    const big = doc(
      ['n'],
      ['a'],
      [
        { id: 1, type: 'declaration', library: 'Array', method: 'new Array', args: [null], polymorphIndex: 1 },
        assign(2, ['incoming', 'n', ''], ['declaration', 1, arg(0)]),
        assign(3, ['declaration', 1, '/return'], ['outgoing', 'a', '']),
      ],
    );
    expect(thrown(() => run(big, { n: 50_000_000 }))).toEqual({
      code: 'TRANSFORMATION_LIMIT_EXCEEDED',
      message:
        'The run was stopped: a value of 50000000 elements or characters is larger than the limit of 1000000 (at step 1 (new Array))',
    });
    expect(thrown(() => run(big, { n: 10_000 }, {}, { limits: { maxOutputChars: 1_000 } }))).toMatchObject({
      code: 'TRANSFORMATION_LIMIT_EXCEEDED',
      message: expect.stringContaining('more than the limit of 1000'),
    });
  });

  it('checks its time after each regular expression, which may take up to the runner’s own limit', () => {
    // each operation blocks for 2 ms, past the run's 1 ms: the run stops after the first, not at the
    // next check of 128 steps (with operations of a second each, minutes of a blocked thread)
    let calls = 0;
    const slow: RunDeps['regex'] = {
      run(op) {
        calls += 1;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
        return regex.run(op);
      },
      close: () => Promise.resolve(),
    };
    const d = doc(
      ['xs'],
      ['ys'],
      [
        method(1, 'Array', 'map', [null, 'test']),
        assign(2, ['incoming', 'xs', ''], ['method', 1, arg(0)]),
        assign(3, ['method', 1, '/return'], ['outgoing', 'ys', '']),
      ],
      [
        {
          id: 'test',
          name: 'test',
          incoming: [{ $id: 'currentValue' }],
          outgoing: [{ $id: 'newValue' }],
          steps: [
            method(1, 'String', 'search', [null, 'a+b']),
            assign(2, ['incoming', 'currentValue', ''], ['method', 1, arg(0)]),
            assign(3, ['method', 1, '/return'], ['outgoing', 'newValue', '']),
          ],
          functions: [],
        },
      ],
    );
    expect(run(d, { xs: ['xab', 'ab'] }, {}, { regex: slow })).toEqual({ ys: [1, 0] });
    calls = 0;
    expect(thrown(() => run(d, { xs: Array.from({ length: 50 }, () => 'aab') }, {}, { regex: slow, limits: { timeoutMs: 1 } }))).toEqual({
      code: 'TRANSFORMATION_LIMIT_EXCEEDED',
      message: 'The run was stopped: the run took longer than 1 ms (at step 1 (String.search) of function "test")',
    });
    expect(calls).toBe(1);
  });

  it('counts a value through every reference: one array filled with another, or one value at many places, is bounded', () => {
    // n references to one array of m zeros: with n = m = 1,000,000, Array.flat (or writing the JSON)
    // would walk 10^12 elements in the event loop; each array alone is within maxValueLength
    const steps = (last: Step[]): Step[] => [
      { id: 1, type: 'declaration', library: 'Array', method: 'new Array', args: [null], polymorphIndex: 1 },
      assign(2, ['incoming', 'm', ''], ['declaration', 1, arg(0)]),
      method(3, 'Array', 'fill', [null, 0]),
      assign(4, ['declaration', 1, '/return'], ['method', 3, arg(0)]),
      ...last,
    ];
    const shared = doc(
      ['n', 'm'],
      ['out'],
      steps([
        { id: 5, type: 'declaration', library: 'Array', method: 'new Array', args: [null], polymorphIndex: 1 },
        assign(6, ['incoming', 'n', ''], ['declaration', 5, arg(0)]),
        method(7, 'Array', 'fill', [null, null]),
        assign(8, ['declaration', 5, '/return'], ['method', 7, arg(0)]),
        assign(9, ['method', 3, '/return'], ['method', 7, arg(1)]),
        method(10, 'Array', 'flat', [null]),
        assign(11, ['method', 7, '/return'], ['method', 10, arg(0)]),
        assign(12, ['method', 10, '/return'], ['outgoing', 'out', '']),
      ]),
    );
    const limits = { maxValueSize: 10_000 };
    expect((run(shared, { n: 20, m: 200 }, {}, { limits }) as { out: number[] }).out).toHaveLength(4_000);
    expect(thrown(() => run(shared, { n: 100, m: 200 }, {}, { limits }))).toEqual({
      code: 'TRANSFORMATION_LIMIT_EXCEEDED',
      message:
        'The run was stopped: a value is larger than the limit of 10000 elements, members and characters (counted through every reference) (at step 7 (Array.fill))',
    });
    const twice = doc(
      ['n', 'm'],
      ['a', 'b'],
      steps([assign(5, ['method', 3, '/return'], ['outgoing', 'a', '']), assign(6, ['method', 3, '/return'], ['outgoing', 'b', ''])]),
    );
    expect(thrown(() => run(twice, { m: 6_000 }, {}, { limits }))).toMatchObject({
      code: 'TRANSFORMATION_LIMIT_EXCEEDED',
      message: expect.stringContaining('The result of transformation "test" is too large') as unknown,
    });
  });

  it('never reaches prototypes: getProperty of "constructor" is undefined, setProperty "__proto__" is plain data', () => {
    const d = doc(
      ['o'],
      ['ctor', 'set'],
      [
        method(1, 'Object', 'getProperty', [null, 'constructor']),
        method(2, 'Object', 'setProperty', [{}, '__proto__', { polluted: true }]),
        assign(3, ['incoming', 'o', ''], ['method', 1, arg(0)]),
        assign(4, ['method', 1, '/return'], ['outgoing', 'ctor', '']),
        assign(5, ['method', 2, '/return'], ['outgoing', 'set', '']),
      ],
    );
    const out = run(d, { o: {} }) as Record<string, unknown>;
    expect(out.ctor).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(out.set)).toBe('{"__proto__":{"polluted":true}}');
  });
});

describe('JST documents of 2023.1 releases (thisArg)', () => {
  const context = (properties: string[], extra: Record<string, unknown> = {}) => ({
    $id: 'thisArg',
    type: 'object',
    properties: Object.fromEntries(properties.map((p) => [p, { $id: p, type: 'string' }])),
    isContext: true,
    isIndexed: true,
    ...extra,
  });
  const callback = (id: string, leading: string[], properties: string[], steps: Step[]) => ({
    id,
    name: id,
    incoming: [...leading.map(($id) => ({ $id })), context(properties)],
    outgoing: [{ $id: 'return' }],
    steps,
    functions: [],
  });

  it('reads member <position>_<label> of thisArg as the argument at that position after the callback (reduce: after initialValue)', () => {
    // accumulator + currentValue.name + the 2nd constant's suffix; the 1st constant is the separator
    const fn = callback(
      'ƒ_reduce_1',
      ['accumulator', 'currentValue', 'index', 'array'],
      ['0_separator', '1_suffix return'],
      [
        {
          id: 1,
          type: 'template',
          library: 'String',
          method: 'templateLiteral',
          template: '${a}${b}${c}${d}',
          args: [null, null, null, null],
        },
        assign(2, ['incoming', 'accumulator', ''], ['template', 1, arg(0)]),
        assign(3, ['incoming', 'currentValue', '/name'], ['template', 1, arg(1)]),
        assign(4, ['incoming', 'thisArg', '/0_separator'], ['template', 1, arg(2)]),
        assign(5, ['incoming', 'thisArg', '/1_suffix return/text'], ['template', 1, arg(3)]),
        assign(6, ['template', 1, '/return'], ['outgoing', 'return', '']),
      ],
    );
    const d = doc(
      ['items'],
      ['joined'],
      [
        method(1, 'Array', 'reduce', [null, 'ƒ_reduce_1', '>', '|', { text: '.' }]),
        assign(2, ['incoming', 'items', ''], ['method', 1, arg(0)]),
        assign(3, ['method', 1, '/return'], ['outgoing', 'joined', '']),
      ],
      [fn],
    );
    const { doc: migrated, migrated: which, errors } = migrateTransformation(d);
    expect(errors).toEqual([]);
    expect(which).toEqual([{ function: 'ƒ_reduce_1', to: 'constantValue1, constantValue2' }]);
    expect((migrated.functions as { incoming: { $id: string }[] }[])[0]?.incoming.map((s) => s.$id)).toEqual([
      'accumulator',
      'currentValue',
      'index',
      'array',
      'constantValue1',
      'constantValue2',
    ]);
    expect(run(d, { items: [{ name: 'a' }, { name: 'b' }] })).toEqual({ joined: '>a|.b|.' });
  });

  it('rebuilds the whole thisArg object where a step reads it, and fills missing callback values so the constants line up', () => {
    const fn = callback(
      'ƒ_map_1',
      ['currentValue'],
      ['0_site', '1_role'],
      [
        method(1, 'Object', 'setProperty', [null, 'value', null]),
        assign(2, ['incoming', 'thisArg', ''], ['method', 1, arg(0)]),
        assign(3, ['incoming', 'currentValue', ''], ['method', 1, arg(2)]),
        assign(4, ['method', 1, '/return'], ['outgoing', 'return', '']),
      ],
    );
    const d = doc(
      ['xs'],
      ['out'],
      [
        method(1, 'Array', 'map', [null, 'ƒ_map_1', 'ams1', 'edge']),
        assign(2, ['incoming', 'xs', ''], ['method', 1, arg(0)]),
        assign(3, ['method', 1, '/return'], ['outgoing', 'out', '']),
      ],
      [fn],
    );
    expect(migrateTransformation(d).errors).toEqual([]);
    expect(run(d, { xs: [1, 2] })).toEqual({
      out: [
        { '0_site': 'ams1', '1_role': 'edge', value: 1 },
        { '0_site': 'ams1', '1_role': 'edge', value: 2 },
      ],
    });
  });

  it('refuses what it cannot translate exactly, naming the function and the step (400 TRANSFORMATION_INVALID at import)', () => {
    const reader = (ptr: string): Step[] => [
      method(1, 'String', 'toUpperCase', [null]),
      assign(7, ['incoming', 'thisArg', ptr], ['method', 1, arg(0)]),
      assign(8, ['method', 1, '/return'], ['outgoing', 'return', '']),
    ];
    const calls = (fnId: string, name = 'map'): Step[] => [
      method(1, 'Array', name, name === 'reduce' ? [null, fnId, '', 'x'] : [null, fnId, 'x']),
      assign(2, ['incoming', 'xs', ''], ['method', 1, arg(0)]),
      assign(3, ['method', 1, '/return'], ['outgoing', 'out', '']),
    ];
    const unnamed = doc(['xs'], ['out'], calls('f'), [callback('f', ['currentValue', 'index', 'array'], ['0_site'], reader('/site'))]);
    expect(migrateTransformation(unnamed).errors).toEqual([
      {
        code: 'OLDER_FORM_UNTRANSLATABLE',
        message:
          'function "f" step 7: reads member "site" of thisArg, which names no argument position (the older form names them <position>_<label>)',
        path: '/functions/0/steps/1/from/ptr',
      },
    ]);
    const twoCallers = doc(
      ['xs'],
      ['out', 'sum'],
      [...calls('f'), method(4, 'Array', 'reduce', [null, 'f', '', 'x']), assign(5, ['incoming', 'xs', ''], ['method', 4, arg(0)])],
      [callback('f', ['currentValue', 'index', 'array'], ['0_site'], reader('/0_site'))],
    );
    expect(migrateTransformation(twoCallers).errors).toMatchObject([
      {
        code: 'OLDER_FORM_UNTRANSLATABLE',
        message: expect.stringContaining('function "f" reads thisArg but is called back by methods that pass it different values'),
      },
    ]);
    const after = doc(['xs'], ['out'], calls('f'), [
      {
        ...callback('f', ['currentValue'], ['0_site'], reader('/0_site')),
        incoming: [{ $id: 'currentValue' }, context(['0_site']), { $id: 'late' }],
      },
    ]);
    expect(migrateTransformation(after).errors).toMatchObject([{ path: '/functions/0/incoming/1' }]);
    const both = doc(['xs'], ['out'], calls('f'), [
      callback('f', ['currentValue', 'index', 'array', 'constantValue1'], [], reader('/0_site')),
    ]);
    expect(migrateTransformation(both).errors).toMatchObject([{ message: expect.stringContaining('both thisArg and constantValue') }]);
    // the run path refuses it too, instead of running something else
    expect(() => run(unnamed, { xs: ['a'] })).toThrow('refused: function "f" step 7: reads member "site" of thisArg');
  });
});
