import { runJsonQuery } from '@nap/json-query';
import { resolveOperand, resolveValue } from '../references';
import type { ReferenceScope } from '../references';
import type { SyncBuiltin } from './types';
import { isRecord } from '@nap/util';
import { TaskInputError, tryJson } from './types';

/*
 * The `evaluation` task as Itential documents it (Studio › Tasks › Reference › evaluation,
 * https://docs.itential.com/itential-platform/studio/tasks/reference/evaluation, cited below as
 * "doc"), with the choices NAP made where the doc is silent marked "not in the doc". The rules, and
 * a test for each, are in services/workflow/test/evaluation.test.ts.
 */

/**
 * Operators of the evaluation task: the eight of Itential's API reference (runEvaluationGroups,
 * `operator` enum), and `===`/`!==`, NAP's own, which compare as Strict Types mode does.
 */
export const EVALUATION_OPERATORS = ['contains', '!contains', '<', '<=', '>', '>=', '==', '!=', '===', '!=='] as const;
type Operator = (typeof EVALUATION_OPERATORS)[number];

/** The kinds of value an operand can be; `nothing` is null and undefined alike. */
type Kind = 'nothing' | 'boolean' | 'number' | 'string' | 'array' | 'object';

function kindOf(value: unknown): Kind {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') return typeof value as Kind;
  return 'object';
}

/** The second operand could not be converted to the first one's type. */
const UNCONVERTIBLE: unique symbol = Symbol('unconvertible');

/**
 * Type inference of the first operand (doc, "Type inference and coercion"): a string that parses
 * into another type becomes that value ("500" → 500, "true" → true, JSON text of an array or object
 * → the array or object); any other string stays as it is. Parsing is JSON's, as a JS platform parses.
 */
export function inferFirst(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const parsed = tryJson(value.trim());
  return typeof parsed === 'string' ? value : parsed;
}

/**
 * Coercion of the second operand (doc): converted to the first operand's type; what cannot be
 * converted gives {@link UNCONVERTIBLE}. Conversions (not in the doc, which only names the rule): a
 * string to a number, boolean, array or object when it parses as one (as the first operand is
 * inferred); a number or boolean to its text. Nothing else converts: not a boolean to a number, not
 * a value to or from nothing.
 */
function convert(value: unknown, kind: Kind): unknown {
  const own = kindOf(value);
  if (own === kind) return value;
  if (kind === 'string') return own === 'number' || own === 'boolean' ? String(value) : UNCONVERTIBLE;
  if (own !== 'string' || kind === 'nothing') return UNCONVERTIBLE;
  const parsed = tryJson((value as string).trim());
  return kindOf(parsed) === kind && typeof parsed !== 'string' ? parsed : UNCONVERTIBLE;
}

/** Deep equality of values of the same JSON types (no coercion inside arrays and objects). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === null || a === undefined) return b === null || b === undefined;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameValue(item, b[i]));
  if (isRecord(a)) {
    if (!isRecord(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k]));
  }
  return a === b;
}

/**
 * `<`, `<=`, `>`, `>=` of two values of one kind. Not in the doc: numbers, texts (code unit order)
 * and booleans (false < true) are ordered as JavaScript orders them; arrays, objects and nothing
 * have no order, so the comparison does not hold.
 */
function ordered(a: unknown, b: unknown, operator: '<' | '<=' | '>' | '>='): boolean {
  const kind = kindOf(a);
  if (kind !== kindOf(b) || (kind !== 'number' && kind !== 'string' && kind !== 'boolean')) return false;
  const x = a as number | string | boolean;
  const y = b as number | string | boolean;
  switch (operator) {
    case '<':
      return x < y;
    case '<=':
      return x <= y;
    case '>':
      return x > y;
    default:
      return x >= y;
  }
}

/**
 * Whether `container` contains `item`, or {@link UNCONVERTIBLE} when it cannot say. Not in the doc
 * page, as far as its text could be read; as the original does (Itential's builder guide): a text
 * contains a text (a number or boolean counts as its text), an array an element equal to the item,
 * an object a key named by the item. Nothing contains nothing, and nothing is in nothing.
 * The original reads a text item as a regular expression; NAP matches it as plain text (the same
 * for every item without `.*+?()[]{}|^$\`), as the engine runs no user pattern outside a worker.
 */
function contains(container: unknown, item: unknown, strict: boolean): boolean | typeof UNCONVERTIBLE {
  const kind = kindOf(container);
  if (kind === 'nothing' || kindOf(item) === 'nothing') return UNCONVERTIBLE;
  if (kind === 'array') return (container as unknown[]).some((element) => (strict ? sameValue(element, item) : equal(element, item)));
  if (kind === 'object') {
    const key = strict ? item : convert(item, 'string');
    return typeof key === 'string' ? Object.hasOwn(container as object, key) : UNCONVERTIBLE;
  }
  const text = strict ? container : String(container as string | number | boolean);
  const needle = strict ? item : convert(item, 'string');
  return typeof text === 'string' && typeof needle === 'string' ? text.includes(needle) : UNCONVERTIBLE;
}

/** `==` without Strict Types: inference of the first operand, the second converted to its type. */
function equal(first: unknown, second: unknown): boolean {
  const a = inferFirst(first);
  const b = kindOf(second) === 'nothing' ? second : convert(second, kindOf(a));
  return b !== UNCONVERTIBLE && sameValue(a, b);
}

function isOperator(value: unknown): value is Operator {
  return (EVALUATION_OPERATORS as readonly unknown[]).includes(value);
}

/**
 * One evaluation `first operator second`; throws {@link TaskInputError} for an operator that is not
 * one of {@link EVALUATION_OPERATORS} (the API reference lists the allowed values).
 *
 * Without Strict Types (doc, "Type inference and coercion"): the first operand is inferred, the
 * second converted to its type, and "if conversion isn't possible, the evaluation rule fails": the
 * evaluation does not hold, whatever the operator (`!=` and `!contains` included). So a first operand
 * that is nothing (a member a query did not find: undefined, or null) holds only for `== null`-like
 * comparisons with nothing: `undefined > 0` does not hold and the task takes its failure transitions.
 * Not in the doc: a second operand that is nothing is not converted but compared as nothing, as a
 * JavaScript platform compares with null: `x != null` holds for every x that is something.
 *
 * With Strict Types (doc, "Enable strict types"), or with `===`/`!==`: the operands are compared
 * exactly as provided: `==` holds only for equal values of one type, `!=` is its negation.
 */
export function compare(first: unknown, operator: unknown, second: unknown, strictTypes = false): boolean {
  if (!isOperator(operator)) {
    throw new TaskInputError(`Evaluation operator ${JSON.stringify(operator)} is unknown; use one of ${EVALUATION_OPERATORS.join(', ')}`);
  }
  const strict = strictTypes || operator === '===' || operator === '!==';
  if (operator === 'contains' || operator === '!contains') {
    const held = contains(strict ? first : inferContainer(first), second, strict);
    if (held === UNCONVERTIBLE) return false;
    return operator === 'contains' ? held : !held;
  }
  if (strict) {
    if (operator === '==' || operator === '===') return sameValue(first, second);
    if (operator === '!=' || operator === '!==') return !sameValue(first, second);
    return ordered(first, second, operator);
  }
  const a = inferFirst(first);
  const kindA = kindOf(a);
  const b = kindOf(second) === 'nothing' ? second : convert(second, kindA);
  if (b === UNCONVERTIBLE) return false;
  switch (operator) {
    case '==':
      return sameValue(a, b);
    case '!=':
      return !sameValue(a, b);
    default:
      return ordered(a, b, operator as '<' | '<=' | '>' | '>=');
  }
}

/**
 * The first operand of `contains`: a text holding JSON of an array or object is that array or
 * object (inference, doc); any other text stays text, so that "12345" contains "234".
 */
function inferContainer(value: unknown): unknown {
  const inferred = inferFirst(value);
  const kind = kindOf(inferred);
  return kind === 'array' || kind === 'object' ? inferred : value;
}

function operand(raw: unknown, queryText: unknown, scope: ReferenceScope): unknown {
  let value = resolveOperand(raw, scope);
  const q = resolveValue(queryText, scope);
  if (typeof q === 'string' && q.trim() !== '') {
    if (typeof value === 'string') value = tryJson(value);
    try {
      value = runJsonQuery(value, q);
    } catch (err) {
      throw new TaskInputError(err instanceof Error ? err.message : String(err));
    }
  }
  return value;
}

function flag(value: unknown): boolean {
  return value === true || value === 'true';
}

/** `options.strictTypes` of the task: the doc's Strict Types mode (its member name is NAP's). */
function strictTypesOf(options: unknown): boolean {
  const o = typeof options === 'string' ? tryJson(options) : options;
  return isRecord(o) && flag(o.strictTypes);
}

/**
 * evaluation: `evaluation_groups` of `evaluations` (`operand_1`, `operator`, `operand_2`, optional
 * `query`/`rightQuery` applied to each operand). A group holds when all (its `all_true_flag`) or any
 * of its evaluations hold; the task's condition when all (`all_true_flag`) or any of its groups hold
 * (doc, "If <any | all> of the following are met"). Every evaluation is decided, so a bad operator
 * anywhere is reported whatever the others say.
 *
 * Output (doc): when the condition is met, `return_value` true and the success transitions;
 * otherwise `return_value` undefined (absent from the task, as from Platform 2023.1 on; 2022.1 gave
 * "null") and the failure transitions.
 */
export const evaluation: SyncBuiltin = ({ incoming, scope }) => {
  const groups = incoming.evaluation_groups;
  if (!Array.isArray(groups) || groups.length === 0) throw new TaskInputError('Incoming "evaluation_groups" must be a non-empty array');
  const strict = strictTypesOf(incoming.options);
  const results = groups.map((group, g) => {
    if (!isRecord(group) || !Array.isArray(group.evaluations) || group.evaluations.length === 0) {
      throw new TaskInputError(`evaluation_groups[${g}] must have a non-empty "evaluations" array`);
    }
    const outcomes = group.evaluations.map((e, i) => {
      if (!isRecord(e)) throw new TaskInputError(`evaluation_groups[${g}].evaluations[${i}] must be an object`);
      if (!isOperator(e.operator)) {
        throw new TaskInputError(
          `evaluation_groups[${g}].evaluations[${i}].operator ${JSON.stringify(e.operator)} is unknown; use one of ${EVALUATION_OPERATORS.join(', ')}`,
        );
      }
      return compare(operand(e.operand_1, e.query, scope), e.operator, operand(e.operand_2, e.rightQuery, scope), strict);
    });
    return flag(group.all_true_flag) ? outcomes.every(Boolean) : outcomes.some(Boolean);
  });
  const met = flag(incoming.all_true_flag) ? results.every(Boolean) : results.some(Boolean);
  return met
    ? { finishState: 'success', outgoing: { return_value: true } }
    : { finishState: 'failure', outgoing: { return_value: undefined } };
};
