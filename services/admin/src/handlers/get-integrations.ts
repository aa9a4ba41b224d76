import { integrationView } from '../domain/integrations';
import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** `GET /integrations`: All integrations. */
export function getIntegrations(svc: AdminContext): Handler<'admin.getIntegrations'> {
  return async (input) => {
    const { results, total } = await svc.integrations.list(input.query);
    return { results: results.map(integrationView), total };
  };
}
