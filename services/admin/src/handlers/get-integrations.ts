import type { Handler } from '@nap/bus';
import { integrationView } from '../domain/integrations';
import type { AdminContext } from '../context';

/** `GET /integrations`: all integrations. */
export function getIntegrations(svc: AdminContext): Handler<'admin.getIntegrations'> {
  return async (input) => {
    const { results, total } = await svc.integrations.list(input.query);
    return { results: results.map(integrationView), total };
  };
}
