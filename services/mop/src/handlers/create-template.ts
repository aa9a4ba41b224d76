import type { Handler } from '@nap/bus';
import type { MopContext } from '../context';

/** `POST /mop/createTemplate`: `{ mop }` → 201 `{ status: 'Created', message, data }`. */
export function createTemplate(svc: MopContext): Handler<'mop.createTemplate'> {
  return async (input, ctx) => {
    const data = await svc.templates.create(input.body.mop, ctx.caller.username);
    return { status: 'Created', message: `Command template "${data.name}" created`, data };
  };
}
