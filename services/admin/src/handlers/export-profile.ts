import type { Handler } from '@nap/bus';
import { maskedProfile } from '../domain/profiles';
import type { AdminContext } from '../context';

/** `GET /profiles/:id/export`: the profile document as stored, secrets answered as `********`. */
export function exportProfile(svc: AdminContext): Handler<'admin.exportProfile'> {
  return async (input) => maskedProfile(await svc.profiles.get(input.params.id));
}
