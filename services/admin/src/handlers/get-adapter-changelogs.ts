import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** `GET /adapters/:name/changelogs`: the changes of the adapter document, newest first. */
export function getAdapterChangelogs(svc: AdminContext): Handler<'admin.getAdapterChangelogs'> {
  return async (input) => {
    const results = [...(await svc.adapters.getLive(input.params.name)).changelog].reverse();
    return { results, total: results.length };
  };
}
