import type { Handler } from '@nap/bus';
import type { MopContext } from '../deps';

/** `GET /mop/listTemplates` (operation 13): every command template as stored. */
export function listTemplates(mop: MopContext): Handler<'mop.listTemplates'> {
  return async () => mop.templates.list();
}
