import { modelView } from '../domain/integrations';
import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** `GET /integration-models`: All models. */
export function getIntegrationModels(svc: AdminContext): Handler<'admin.getIntegrationModels'> {
  return async (input) => {
    const { results, total } = await svc.integrationModels.list(input.query);
    return { results: results.map(modelView), total };
  };
}
