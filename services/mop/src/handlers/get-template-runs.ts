import type { Handler } from '@nap/bus';
import type { MopContext } from '../deps';

/** `GET /mop/runs`: a page of the run history, newest first. */
export function getTemplateRuns(mop: MopContext): Handler<'mop.getTemplateRuns'> {
  return async (input) => mop.runs.page(input.query);
}
