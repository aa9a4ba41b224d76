import type { Handler } from '@nap/bus';
import { prebuiltView } from '../domain/prebuilts';
import type { AdminContext } from '../context';

/** `GET /prebuilts`: the installed prebuilts (installations under way left out). */
export function getPrebuilts(svc: AdminContext): Handler<'admin.getPrebuilts'> {
  return async (input) => {
    const { results, total } = await svc.prebuilts.list(input.query);
    return { results: results.map(prebuiltView), total };
  };
}
