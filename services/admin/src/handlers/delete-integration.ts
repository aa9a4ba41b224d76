import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** `DELETE /integrations/:name`: delete an integration. */
export function deleteIntegration(svc: AdminContext): Handler<'admin.deleteIntegration'> {
  return async (input) => {
    const current = await svc.integrations.get(input.params.name);
    await svc.integrations.delete(current.name);
    svc.integrationCalls.forgetIntegration(current);
    return { status: 'success', message: `Integration "${input.params.name}" deleted` };
  };
}
