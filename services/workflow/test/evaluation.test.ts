import { compare, evaluation, inferFirst } from '../src/domain/builtins/evaluation';
import type { BuiltinResult } from '../src/domain/builtins';
import type { ReferenceScope } from '../src/domain/references';

/**
 * The rules of the evaluation task, one by one: what Itential documents (Studio › Tasks › Reference ›
 * evaluation) and what NAP chose where the page is silent (marked "not in the doc" in evaluation.ts).
 */

const signal = new AbortController().signal;

function run(incoming: Record<string, unknown>, scope: ReferenceScope = { variables: {}, tasks: {} }): BuiltinResult {
  return evaluation({ incoming, scope, startedAt: Date.now(), signal }) as BuiltinResult;
}

const stat = (variable: unknown) => ({ task: 'static', variable });

/** A task of one group of the given evaluations. */
function one(...evaluations: Record<string, unknown>[]): Record<string, unknown> {
  return { all_true_flag: true, evaluation_groups: [{ all_true_flag: true, evaluations }] };
}

describe('evaluation: type inference of the first operand (doc)', () => {
  it.each([
    ['500', 500],
    [' 42 ', 42],
    ['true', true],
    ['false', false],
    ['[1,2]', [1, 2]],
    ['{"a":1}', { a: 1 }],
    ['null', null],
    ['abc', 'abc'],
    ['', ''],
    ['"quoted"', '"quoted"'],
    ['1.2.3', '1.2.3'],
  ])('%j is inferred as %j', (text, value) => {
    expect(inferFirst(text)).toEqual(value);
  });

  it('compares "500" with 500 as numbers, and "10" after "9" as numbers, not texts', () => {
    expect(compare('500', '==', 500)).toBe(true);
    expect(compare('500', '!=', 500)).toBe(false);
    expect(compare('10', '>', '9')).toBe(true);
  });
});

describe('evaluation: coercion of the second operand to the type of the first (doc)', () => {
  it.each([
    [5, '==', '5', true],
    [5, '<', ' 10 ', true],
    [true, '==', 'true', true],
    [false, '!=', 'true', true],
    ['abc', '==', 'abc', true],
    ['v5', '!=', 5, true],
    ['abc', '>', 'abb', true],
    [[1, 2], '==', '[1,2]', true],
    [{ a: 1 }, '==', '{"a":1}', true],
    [{ a: [1] }, '==', { a: [1] }, true],
  ])('%j %s %j holds: %s', (a, op, b, expected) => {
    expect(compare(a, op, b)).toBe(expected);
  });

  it.each([
    [5, '==', 'five'],
    [5, '!=', 'five'],
    [5, '<', 'five'],
    [5, '==', true],
    [true, '!=', 1],
    ['abc', '!=', { a: 1 }],
    [[1], '!=', 'not json'],
    [{ a: 1 }, '==', '[1]'],
  ])('%j %s %j: the second operand does not convert, so the rule fails (false), the negations included', (a, op, b) => {
    expect(compare(a, op, b)).toBe(false);
  });
});

describe('evaluation: operands that are nothing (undefined, null)', () => {
  it.each(['>', '>=', '<', '<=', '==', '!=', 'contains', '!contains'])(
    'a first operand that is undefined never holds against a value: undefined %s 0 is false, and throws nothing',
    (op) => {
      expect(compare(undefined, op, 0)).toBe(false);
      expect(compare(null, op, '')).toBe(false);
    },
  );

  it('nothing equals nothing: undefined == null holds, != does not, and nothing has no order', () => {
    expect(compare(undefined, '==', null)).toBe(true);
    expect(compare(null, '!=', undefined)).toBe(false);
    expect(compare(undefined, '<=', null)).toBe(false);
  });

  it('a second operand that is nothing is compared as nothing: x != null holds for every x that is something', () => {
    for (const x of [0, '', 'abc', false, [], {}]) {
      expect(compare(x, '!=', null)).toBe(true);
      expect(compare(x, '==', null)).toBe(false);
      expect(compare(x, '>', null)).toBe(false);
    }
    expect(compare('null', '==', null)).toBe(true);
  });

  it('nothing contains nothing and nothing is in nothing: contains and !contains are both false', () => {
    expect(compare(['a'], 'contains', undefined)).toBe(false);
    expect(compare(['a'], '!contains', undefined)).toBe(false);
    expect(compare(undefined, '!contains', 'FAILURE')).toBe(false);
  });
});

describe('evaluation: contains and !contains', () => {
  it.each([
    ['abcdef', 'contains', 'cd', true],
    ['abcdef', '!contains', 'xy', true],
    ['status 404', 'contains', 404, true],
    ['12345', 'contains', '234', true],
    [12345, 'contains', 234, true],
    ['a.b(1)', 'contains', '.b(', true],
    [['a', 'b'], 'contains', 'b', true],
    [['a', 'b'], '!contains', 'c', true],
    [[1, 2], 'contains', '2', true],
    ['["x","y"]', 'contains', 'y', true],
    [{ key: 1 }, 'contains', 'key', true],
    [{ key: 1 }, '!contains', 'other', true],
    [{ key: 1 }, 'contains', 'other', false],
    ['abc', 'contains', { a: 1 }, false],
    ['abc', '!contains', { a: 1 }, false],
  ])('%j %s %j: %s', (a, op, b, expected) => {
    expect(compare(a, op, b)).toBe(expected);
  });
});

describe("evaluation: Strict Types (doc), and NAP's === and !==", () => {
  it('compares exactly as provided: "500" != 500 holds with strict types, not without', () => {
    const task = (strictTypes: boolean) => ({
      ...one({ operand_1: stat('500'), operator: '!=', operand_2: stat(500) }),
      options: { strictTypes },
    });
    expect(run(task(false)).finishState).toBe('failure');
    expect(run(task(true)).finishState).toBe('success');
  });

  it.each([
    ['500', '===', 500, false],
    ['500', '!==', 500, true],
    [{ a: [1] }, '===', { a: [1] }, true],
    [{ a: [1] }, '===', { a: ['1'] }, false],
    [null, '===', undefined, true],
    [0, '!==', null, true],
  ])('%j %s %j: %s', (a, op, b, expected) => {
    expect(compare(a, op, b)).toBe(expected);
  });

  it('strict types apply to every evaluation of the task', () => {
    expect(compare('10', '>', 9, true)).toBe(false);
    expect(compare(['1'], 'contains', 1, true)).toBe(false);
  });
});

describe('evaluation: groups, condition and output (doc)', () => {
  const yes = { operand_1: stat(1), operator: '==', operand_2: stat(1) };
  const no = { operand_1: stat(1), operator: '==', operand_2: stat(2) };
  const task = (all: boolean, groups: [boolean, Record<string, unknown>[]][]) => ({
    all_true_flag: all,
    evaluation_groups: groups.map(([groupAll, evaluations]) => ({ all_true_flag: groupAll, evaluations })),
  });

  it('a group with all_true_flag holds when all its evaluations hold, without when any holds', () => {
    expect(run(task(true, [[true, [yes, no]]])).finishState).toBe('failure');
    expect(run(task(true, [[false, [yes, no]]])).finishState).toBe('success');
    expect(run(task(true, [[false, [no, no]]])).finishState).toBe('failure');
  });

  it('the condition "all" holds when every group holds, "any" when one does', () => {
    expect(
      run(
        task(true, [
          [true, [yes]],
          [true, [no]],
        ]),
      ).finishState,
    ).toBe('failure');
    expect(
      run(
        task(false, [
          [true, [yes]],
          [true, [no]],
        ]),
      ).finishState,
    ).toBe('success');
    expect(
      run(
        task(false, [
          [true, [no]],
          [true, [no]],
        ]),
      ).finishState,
    ).toBe('failure');
    expect(run({ ...task(true, [[true, [yes]]]), all_true_flag: 'true' }).finishState).toBe('success');
  });

  it('outputs true when the condition is met, undefined (no value) when it is not', () => {
    expect(run(one(yes))).toEqual({ finishState: 'success', outgoing: { return_value: true } });
    const failed = run(one(no));
    expect(failed.finishState).toBe('failure');
    expect(failed.outgoing.return_value).toBeUndefined();
    expect(JSON.parse(JSON.stringify(failed.outgoing))).toEqual({});
  });

  it('a count read from a pinned answer ({}) decides: undefined > 0 takes the failure transitions', () => {
    const scope: ReferenceScope = { variables: {}, tasks: { f8a1: { status: 'complete', variables: { outgoing: { result: {} } } } } };
    const res = run(
      one({ query: 'response.result', operand_1: { task: 'f8a1', variable: 'result' }, operator: '>', operand_2: stat(0) }),
      scope,
    );
    expect(res.finishState).toBe('failure');
  });

  it('applies query and rightQuery to the operands, a JSON text parsed first', () => {
    const scope: ReferenceScope = { variables: { body: '{"total": 3}', limit: { max: '2' } }, tasks: {} };
    const res = run(
      one({
        query: 'total',
        operand_1: { task: 'job', variable: 'body' },
        operator: '>',
        rightQuery: 'max',
        operand_2: { task: 'job', variable: 'limit' },
      }),
      scope,
    );
    expect(res.finishState).toBe('success');
  });
});

describe('evaluation: bad input is an error naming what is wrong', () => {
  it('an operator outside the documented ones names the evaluation and the operator', () => {
    expect(() =>
      run({
        all_true_flag: false,
        evaluation_groups: [{ all_true_flag: false, evaluations: [{ operand_1: stat(1), operator: '~=', operand_2: stat(1) }] }],
      }),
    ).toThrow(/evaluation_groups\[0\]\.evaluations\[0\]\.operator "~=" is unknown/);
  });

  it('refuses missing groups and evaluations', () => {
    expect(() => run({ all_true_flag: true })).toThrow('"evaluation_groups"');
    expect(() => run({ evaluation_groups: [{ evaluations: [] }] })).toThrow('evaluation_groups[0]');
    expect(() => run({ evaluation_groups: [{ evaluations: ['x'] }] })).toThrow('evaluation_groups[0].evaluations[0]');
  });

  it('a query that does not parse is an error naming it', () => {
    expect(() => run(one({ query: '[[[', operand_1: stat({ a: 1 }), operator: '==', operand_2: stat(1) }))).toThrow();
  });
});
