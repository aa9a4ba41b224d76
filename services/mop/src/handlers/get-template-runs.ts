import type { Handler } from '@nap/bus';
import type { MopContext } from '../deps';

/** `GET /mop/runs`: a page of the run history, newest first. */
export function getTemplateRuns(mop: MopContext): Handler {
  return (async (input: { query: { template?: string; kind?: 'command' | 'analytic'; device?: string; skip?: number; limit?: number } }) =>
    mop.runs.page(input.query)) as Handler;
}
