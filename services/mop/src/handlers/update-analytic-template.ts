import type { Handler } from '@nap/bus';
import type { MopContext } from '../deps';

/** `POST /mop/updateAnalyticTemplate/:mopID`: replaces the template, answers it. */
export function updateAnalyticTemplate(mop: MopContext): Handler<'mop.updateAnalyticTemplate'> {
  return async (input, ctx) => mop.analytics.update(input.params.mopID, input.body.template, ctx.caller.username);
}
