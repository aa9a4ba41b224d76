import { prebuiltView } from '../domain/prebuilts';
import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** `GET /prebuilts/:id`: Get a prebuilt. */
export function getPrebuilt(svc: AdminContext): Handler<'admin.getPrebuilt'> {
  return async (input) => prebuiltView(await svc.prebuilts.installed(input.params.id));
}
