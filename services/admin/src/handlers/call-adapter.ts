import type { Handler } from '@nap/bus';
import { callThroughAdapter } from '../steps/adapters';
import type { AdminContext } from '../context';

/** Bus only: one HTTP request of another service through an adapter: the admin service adds the credentials, no secret crosses the bus. */
export function callAdapter(svc: AdminContext): Handler<'admin.callAdapter'> {
  return async (input) => {
    const { adapter, ...request } = input.body;
    return callThroughAdapter(svc, adapter, request);
  };
}
