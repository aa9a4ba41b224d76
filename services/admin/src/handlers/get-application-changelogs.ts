import type { Handler } from '@nap/bus';
import { APPLICATIONS } from '@nap/contracts';
import { applicationNamed } from '../domain/applications';
import type { AdminContext } from '../context';

/** `GET /applications/:name/changelogs`: the changes operators made to the application's service, newest first. */
export function getApplicationChangelogs(svc: AdminContext): Handler<'admin.getApplicationChangelogs'> {
  return async (input) => {
    const state = await svc.applicationStates.get(APPLICATIONS[applicationNamed(input.params.name)].service);
    const results = [...state.changelog].reverse();
    return { results, total: results.length };
  };
}
