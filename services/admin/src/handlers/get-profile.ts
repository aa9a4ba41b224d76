import type { Handler } from '@nap/bus';
import { profileView } from '../domain/profiles';
import type { AdminContext } from '../context';

/** `GET /profiles/:id`: get a profile. */
export function getProfile(svc: AdminContext): Handler<'admin.getProfile'> {
  return async (input) => {
    const { id } = input.params;
    const record = await svc.profiles.get(id);
    const active = (await svc.activeProfile.activeId()) === id;
    return profileView(record, active, active && (await svc.reconciler.inSync()));
  };
}
