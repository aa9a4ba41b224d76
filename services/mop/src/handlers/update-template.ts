import type { Handler } from '@nap/bus';
import type { MopContext } from '../context';

/** `POST /mop/updateTemplate/:mopID`: replaces the template, answers it. */
export function updateTemplate(svc: MopContext): Handler<'mop.updateTemplate'> {
  return async (input, ctx) => svc.templates.update(input.params.mopID, input.body.mop, ctx.caller.username, ctx);
}
