import type { Handler } from '@nap/bus';
import type { MopContext } from '../context';

/** `GET /mop/runs/:id`. */
export function getTemplateRun(svc: MopContext): Handler<'mop.getTemplateRun'> {
  return async (input) => svc.runs.get(input.params.id);
}
