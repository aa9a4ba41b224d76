import type { Handler } from '@nap/bus';
import { changeIntegration } from '../steps/integrations';
import type { AdminContext } from '../context';

/** `PUT /integrations/:name/properties`: the same change as `PUT /integrations/:name`. */
export function updateIntegrationProperties(svc: AdminContext): Handler<'admin.updateIntegrationProperties'> {
  return async (input, ctx) => changeIntegration(svc, input.params.name, input.body.properties, ctx.caller.username, ctx.deadline, ctx);
}
