import type { Handler } from '@nap/bus';
import type { MopContext } from '../deps';

/** `POST /mop/updateTemplate/:mopID`: replaces the template, answers it. */
export function updateTemplate(mop: MopContext): Handler<'mop.updateTemplate'> {
  return async (input, ctx) => mop.templates.update(input.params.mopID, input.body.mop, ctx.caller.username);
}
