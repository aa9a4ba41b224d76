import type { Handler } from '@nap/bus';
import { integrationView } from '../domain/integrations';
import { integrationHost } from '../steps/integrations';
import type { AdminContext } from '../context';

/** `GET /integrations`: all integrations. */
export function getIntegrations(svc: AdminContext): Handler<'admin.getIntegrations'> {
  return async (input) => {
    const { results, total } = await svc.integrations.list(input.query);
    const host = integrationHost(svc);
    return { results: results.map((doc) => integrationView(doc, host)), total };
  };
}
