import type { Handler } from '@nap/bus';
import { profileView } from '../domain/profiles';
import type { AdminContext } from '../context';

/** `GET /profiles`: a page of profiles; the active one says whether every replica carries it. */
export function getProfiles(svc: AdminContext): Handler<'admin.getProfiles'> {
  return async (input) => {
    const [{ results, total }, activeId] = await Promise.all([svc.profiles.list(input.query), svc.activeProfile.activeId()]);
    const sync = results.some((r) => r._id === activeId) ? await svc.reconciler.inSync() : false;
    return { results: results.map((r) => profileView(r, r._id === activeId, sync)), total };
  };
}
