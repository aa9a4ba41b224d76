import type { Handler } from '@nap/bus';
import type { MopContext } from '../context';

/** `GET /mop/listTemplates`: every command template as stored. */
export function listTemplates(svc: MopContext): Handler<'mop.listTemplates'> {
  return async () => svc.templates.list();
}
