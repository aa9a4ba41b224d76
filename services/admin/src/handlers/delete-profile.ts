import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import type { AdminContext } from '../context';
import { PROFILE_CHANGE, refuseUnlessAdministrator } from '../steps/delegation';

/** `DELETE /profiles/:id`: never the active profile. */
export function deleteProfile(svc: AdminContext): Handler<'admin.deleteProfile'> {
  return async (input, ctx) => {
    refuseUnlessAdministrator(ctx.caller, PROFILE_CHANGE);
    const { id } = input.params;
    await svc.profiles.get(id);
    const refuse = () =>
      new AppError(
        'PROFILE_ACTIVE',
        `Profile "${id}" is active and cannot be deleted; activate another profile first (PUT /profiles/:id/active)`,
      );
    if ((await svc.activeProfile.activeId()) === id) throw refuse();
    // against a switch to it at the same moment: had the switch won, the profile is put back
    const deleted = await svc.profiles.delete(id);
    if ((await svc.activeProfile.activeId()) === id) {
      await svc.profiles.putBack(deleted);
      throw refuse();
    }
    return { status: 'success', message: `Profile "${id}" deleted` };
  };
}
