import type { Handler } from '@nap/bus';
import type { MopContext } from '../deps';

/** `POST /mop/createAnalyticTemplate` (operation 14): `{ template }` → 201 `{ status: 'Created', message, data }`. */
export function createAnalyticTemplate(mop: MopContext): Handler<'mop.createAnalyticTemplate'> {
  return async (input, ctx) => {
    const data = await mop.analytics.create(input.body.template, ctx.caller.username);
    return { status: 'Created', message: `Analytic template "${data.name}" created`, data };
  };
}
