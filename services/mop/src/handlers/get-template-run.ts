import type { Handler } from '@nap/bus';
import type { MopContext } from '../deps';

/** `GET /mop/runs/:id`. */
export function getTemplateRun(mop: MopContext): Handler<'mop.getTemplateRun'> {
  return async (input) => mop.runs.get(input.params.id);
}
