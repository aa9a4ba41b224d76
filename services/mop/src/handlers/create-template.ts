import type { Handler } from '@nap/bus';
import type { MopContext } from '../context';

/** `POST /mop/createTemplate`: `{ mop }` → `{ status: 'Created', message, data, ops: [data] }` (ipctl reads ops[0]). */
export function createTemplate(svc: MopContext): Handler<'mop.createTemplate'> {
  return async (input, ctx) => {
    const data = await svc.templates.create(input.body.mop, ctx.caller.username);
    return { status: 'Created', message: `Command template "${data.name}" created`, data, ops: [data] };
  };
}
