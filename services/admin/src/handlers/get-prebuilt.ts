import type { Handler } from '@nap/bus';
import { prebuiltView } from '../domain/prebuilts';
import type { AdminContext } from '../context';

/** `GET /prebuilts/:id`: get a prebuilt. */
export function getPrebuilt(svc: AdminContext): Handler<'admin.getPrebuilt'> {
  return async (input) => prebuiltView(await svc.prebuilts.installed(input.params.id));
}
