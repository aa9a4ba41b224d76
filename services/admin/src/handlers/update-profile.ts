import type { Handler } from '@nap/bus';
import { replaceProfile } from '../steps/profiles';
import type { AdminContext } from '../context';
import { PROFILE_CHANGE, refuseUnlessAdministrator } from '../steps/delegation';

/** `PUT /profiles/:id`: replaces the document (the id stays; defaults fill what it lacks); the live members of an active profile apply at once. */
export function updateProfile(svc: AdminContext): Handler<'admin.updateProfile'> {
  return async (input, ctx) => {
    refuseUnlessAdministrator(ctx.caller, PROFILE_CHANGE);
    return replaceProfile(svc, input.params.id, input.body.properties, ctx.caller.username, ctx);
  };
}
