import type { Handler } from '@nap/bus';
import type { MopContext } from '../deps';

/** `GET /mop/runs/:id`. */
export function getTemplateRun(mop: MopContext): Handler {
  return (async (input: { params: { id: string } }) => mop.runs.get(input.params.id)) as Handler;
}
