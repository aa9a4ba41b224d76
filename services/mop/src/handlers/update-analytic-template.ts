import type { Handler } from '@nap/bus';
import type { AnalyticTemplate } from '@nap/contracts';
import type { MopContext } from '../deps';

/** `POST /mop/updateAnalyticTemplate/:mopID`: replaces the template, answers it. */
export function updateAnalyticTemplate(mop: MopContext): Handler {
  return (async (input: { params: { mopID: string }; body: { template: AnalyticTemplate } }, ctx) =>
    mop.analytics.update(input.params.mopID, input.body.template, ctx.caller.username)) as Handler;
}
