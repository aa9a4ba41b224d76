import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import { applicationsHealth } from '../steps/applications';
import type { AdminContext } from '../context';

/** `GET /health/applications/:name`: health of one application. */
export function getApplicationHealth(svc: AdminContext): Handler<'admin.getApplicationHealth'> {
  return async (input) => {
    // one entry for a known name; 404 APPLICATION_NOT_FOUND otherwise
    const [health] = await applicationsHealth(svc, input.params.name);
    if (health === undefined) throw new AppError('APPLICATION_NOT_FOUND', `No application named "${input.params.name}"`);
    return health;
  };
}
