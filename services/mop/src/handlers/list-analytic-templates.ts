import type { Handler } from '@nap/bus';
import type { MopContext } from '../deps';

/** `GET /mop/listAnalyticTemplates`. */
export function listAnalyticTemplates(mop: MopContext): Handler<'mop.listAnalyticTemplates'> {
  return async () => mop.analytics.list();
}
