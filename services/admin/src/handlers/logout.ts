import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import { endSession } from '../steps/sessions';
import type { AdminContext } from '../context';

/** `GET /logout`: ends the session of the calling token; every gateway drops it at once. */
export function logout(svc: AdminContext): Handler<'admin.logout'> {
  return async (_input, ctx) => {
    if (!ctx.caller.sid) throw new AppError('UNPROCESSABLE', 'Basic credentials have no session to end; stop sending them');
    await endSession(svc, ctx.caller.sid);
    ctx.audit({ target: { kind: 'session', id: ctx.caller.sid, name: ctx.caller.username } });
    return { status: 'success', message: 'Logged out' };
  };
}
