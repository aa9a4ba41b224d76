import type { Handler } from '@nap/bus';
import { viewAccount } from '../steps/accounts';
import type { AdminContext } from '../context';

/** `GET /whoami`: the calling account (the system caller as it is, for calls between services). */
export function whoami(svc: AdminContext): Handler<'admin.whoami'> {
  return async (_input, ctx) => {
    if (ctx.caller.id === 'system') return { ...ctx.caller };
    return viewAccount(svc, await svc.accounts.get(ctx.caller.id));
  };
}
