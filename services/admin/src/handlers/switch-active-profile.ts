import type { Handler } from '@nap/bus';
import { changedMembers } from '../domain/profiles';
import { profileNotFound } from '../store/profiles';
import { profileChanged } from '../steps/profiles';
import type { AdminContext } from '../context';
import { PROFILE_CHANGE, refuseUnlessAdministrator } from '../steps/delegation';

/** `PUT /profiles/:id/active`: one write of the pointer; then the live members reach every replica. */
export function switchActiveProfile(svc: AdminContext): Handler<'admin.switchActiveProfile'> {
  return async (input, ctx) => {
    refuseUnlessAdministrator(ctx.caller, PROFILE_CHANGE);
    const { id } = input.params;
    await svc.profiles.get(id);
    const previous = await svc.activeProfile.switchTo(id, ctx.caller.username);
    const record = await svc.profiles.find(id);
    if (record === null) {
      // deleted between the check and the switch: the previous profile stays active
      if (previous !== null) await svc.activeProfile.restore(id, previous);
      throw profileNotFound(id);
    }
    if (previous?.id !== id)
      ctx.audit({
        target: { kind: 'profile', id, name: id },
        changes: [{ member: 'activeProfile', before: previous?.id ?? null, after: id }],
      });
    const before = previous === null ? {} : previous.id === id ? record.profile : ((await svc.profiles.find(previous.id))?.profile ?? {});
    return profileChanged(svc, record, true, changedMembers(before, record.profile));
  };
}
