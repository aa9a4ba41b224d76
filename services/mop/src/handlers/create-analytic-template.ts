import type { Handler } from '@nap/bus';
import type { MopContext } from '../context';

/** `POST /mop/createAnalyticTemplate`: `{ template }` → `{ status: 'Created', message, data, ops: [data] }` (ipctl reads ops[0]). */
export function createAnalyticTemplate(svc: MopContext): Handler<'mop.createAnalyticTemplate'> {
  return async (input, ctx) => {
    const data = await svc.analytics.create(input.body.template, ctx.caller.username);
    return { status: 'Created', message: `Analytic template "${data.name}" created`, data, ops: [data] };
  };
}
