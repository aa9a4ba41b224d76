import type { Handler } from '@nap/bus';
import { changeIntegration } from '../steps/integrations';
import type { AdminContext } from '../context';

/** `PUT /integrations/:name`: model, type and properties; a secret sent back as `********` keeps the stored one. */
export function updateIntegration(svc: AdminContext): Handler<'admin.updateIntegration'> {
  return async (input, ctx) => changeIntegration(svc, input.params.name, input.body.properties, ctx.caller.username, ctx.deadline, ctx);
}
