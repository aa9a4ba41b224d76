import type { Handler } from '@nap/bus';
import { checkModel } from '../domain/openapi-model';
import type { AdminContext } from '../context';

/** `PUT /integration-models/validation`: the check of an import, storing nothing. */
export function validateIntegrationModel(_svc: AdminContext): Handler<'admin.validateIntegrationModel'> {
  return async (input) => {
    const { valid, errors, warnings } = await checkModel(input.body.model);
    return { valid, errors, warnings };
  };
}
