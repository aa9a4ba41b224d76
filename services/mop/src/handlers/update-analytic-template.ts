import type { Handler } from '@nap/bus';
import type { MopContext } from '../context';

/** `POST /mop/updateAnalyticTemplate/:mopID`: replaces the template, answers it. */
export function updateAnalyticTemplate(svc: MopContext): Handler<'mop.updateAnalyticTemplate'> {
  return async (input, ctx) => svc.analytics.update(input.params.mopID, input.body.template, ctx.caller.username, ctx);
}
