import type { Handler } from '@nap/bus';
import type { MopContext } from '../context';
import type { ConfigDiff } from '../domain/diff';

/**
 * `POST /mop/diff`: line diff of two configurations plus its unified text, run off the event loop
 * within the diff time limit (422 MOP_DIFF_LIMIT_EXCEEDED past it).
 */
export function getDiff(svc: MopContext): Handler<'mop.getDiff'> {
  return async (input, ctx) => {
    const { value_a: a, value_b: b } = input.body;
    const diffs = await svc.differ.diff([{ a, b, label: 'value_a and value_b' }], ctx.deadline);
    return diffs[0] as ConfigDiff;
  };
}
