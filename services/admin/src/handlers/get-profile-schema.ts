import type { Handler } from '@nap/bus';
import { profileSchema } from '@nap/contracts';
import type { AdminContext } from '../context';

/** `GET /schema/profiles`: the JSON Schema the server validates profiles with. */
export function getProfileSchema(_svc: AdminContext): Handler<'admin.getProfileSchema'> {
  return async () => ({ ...profileSchema, title: 'NAP profile' });
}
