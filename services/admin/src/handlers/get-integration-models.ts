import type { Handler } from '@nap/bus';
import { modelView } from '../domain/integrations';
import type { AdminContext } from '../context';

/** `GET /integration-models`: all models, as `{ integrationModels, total }` (the platform's shape, which ipctl reads). */
export function getIntegrationModels(svc: AdminContext): Handler<'admin.getIntegrationModels'> {
  return async (input) => {
    const { results, total } = await svc.integrationModels.list(input.query);
    return { integrationModels: results.map(modelView), total };
  };
}
