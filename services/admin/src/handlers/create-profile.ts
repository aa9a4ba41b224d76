import type { Handler } from '@nap/bus';
import { addProfile } from '../steps/profiles';
import type { AdminContext } from '../context';
import { PROFILE_CHANGE, refuseUnlessAdministrator } from '../steps/delegation';

/** `POST /profiles`: a new profile, inactive; defaults fill what it leaves out. */
export function createProfile(svc: AdminContext): Handler<'admin.createProfile'> {
  return async (input, ctx) => {
    refuseUnlessAdministrator(ctx.caller, PROFILE_CHANGE);
    return addProfile(svc, input.body.properties, ctx.caller.username, 'body.properties', ctx);
  };
}
