import type { Handler } from '@nap/bus';
import type { MopContext } from '../context';

/** `GET /mop/runs`: a page of the run history, newest first. */
export function getTemplateRuns(svc: MopContext): Handler<'mop.getTemplateRuns'> {
  return async (input) => svc.runs.page(input.query);
}
