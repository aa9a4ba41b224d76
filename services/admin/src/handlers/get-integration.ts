import type { Handler } from '@nap/bus';
import { integrationView } from '../domain/integrations';
import { integrationHost } from '../steps/integrations';
import type { AdminContext } from '../context';

/** `GET /integrations/:name`: the integration, secrets answered as `********`. */
export function getIntegration(svc: AdminContext): Handler<'admin.getIntegration'> {
  return async (input) => integrationView(await svc.integrations.get(input.params.name), integrationHost(svc));
}
