import type { Handler } from '@nap/bus';
import { addProfile } from '../steps/profiles';
import type { AdminContext } from '../context';

/** `POST /profiles/import`: an exported profile, created inactive; a secret still `********` is refused. */
export function importProfile(svc: AdminContext): Handler<'admin.importProfile'> {
  return async (input, ctx) => addProfile(svc, input.body.profile, ctx.caller.username, 'body.profile');
}
