import { runJsonQuery } from '@nap/json-query';
import { resolveOperand, resolveValue } from '../references';
import type { ReferenceScope } from '../references';
import type { SyncBuiltin } from './types';
import { isRecord } from '@nap/util';
import { TaskInputError, looseEqual, tryJson } from './types';

/** Operators of the evaluation task. */
export const EVALUATION_OPERATORS = ['contains', '!contains', '<', '<=', '>', '>=', '==', '!=', '===', '!=='] as const;

function contains(container: unknown, item: unknown): boolean {
  if (typeof container === 'string') return typeof item === 'string' || typeof item === 'number' ? container.includes(String(item)) : false;
  if (Array.isArray(container)) return container.some((element) => looseEqual(element, item));
  if (isRecord(container)) return typeof item === 'string' && Object.hasOwn(container, item);
  return false;
}

function ordered(a: unknown, b: unknown, operator: string): boolean {
  const na = typeof a === 'number' ? a : typeof a === 'string' && a.trim() !== '' ? Number(a) : Number.NaN;
  const nb = typeof b === 'number' ? b : typeof b === 'string' && b.trim() !== '' ? Number(b) : Number.NaN;
  let cmp: number;
  if (!Number.isNaN(na) && !Number.isNaN(nb)) cmp = na - nb;
  else if (typeof a === 'string' && typeof b === 'string') cmp = a < b ? -1 : a > b ? 1 : 0;
  else throw new TaskInputError(`Operator ${operator} compares numbers or texts, not ${JSON.stringify(a)} and ${JSON.stringify(b)}`);
  switch (operator) {
    case '<':
      return cmp < 0;
    case '<=':
      return cmp <= 0;
    case '>':
      return cmp > 0;
    default:
      return cmp >= 0;
  }
}

/** One comparison; throws {@link TaskInputError} for an unknown operator. */
export function compare(a: unknown, operator: unknown, b: unknown): boolean {
  switch (operator) {
    case 'contains':
      return contains(a, b);
    case '!contains':
      return !contains(a, b);
    case '==':
    case '===':
      return looseEqual(a, b);
    case '!=':
    case '!==':
      return !looseEqual(a, b);
    case '<':
    case '<=':
    case '>':
    case '>=':
      return ordered(a, b, operator);
    default:
      throw new TaskInputError(`Evaluation operator ${JSON.stringify(operator)} is unknown; use one of ${EVALUATION_OPERATORS.join(', ')}`);
  }
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

/**
 * evaluation: `evaluation_groups` of `evaluations` (`operand_1`, `operator`, `operand_2`, optional
 * `query`/`rightQuery` applied to each operand); a group holds when all (`all_true_flag`) or any of
 * its evaluations hold, the task when all or any group holds → `return_value`, state success or failure.
 */
export const evaluation: SyncBuiltin = ({ incoming, scope }) => {
  const groups = incoming.evaluation_groups;
  if (!Array.isArray(groups) || groups.length === 0) throw new TaskInputError('Incoming "evaluation_groups" must be a non-empty array');
  const results = groups.map((group, g) => {
    if (!isRecord(group) || !Array.isArray(group.evaluations) || group.evaluations.length === 0) {
      throw new TaskInputError(`evaluation_groups[${g}] must have a non-empty "evaluations" array`);
    }
    const outcomes = group.evaluations.map((e, i) => {
      if (!isRecord(e)) throw new TaskInputError(`evaluation_groups[${g}].evaluations[${i}] must be an object`);
      return compare(operand(e.operand_1, e.query, scope), e.operator, operand(e.operand_2, e.rightQuery, scope));
    });
    return flag(group.all_true_flag) ? outcomes.every(Boolean) : outcomes.some(Boolean);
  });
  const value = flag(incoming.all_true_flag) ? results.every(Boolean) : results.some(Boolean);
  return { finishState: value ? 'success' : 'failure', outgoing: { return_value: value } };
};
