import type { Handler } from '@nap/bus';
import type { MopContext } from '../context';

/** `GET /mop/listAnalyticTemplates`. */
export function listAnalyticTemplates(svc: MopContext): Handler<'mop.listAnalyticTemplates'> {
  return async () => svc.analytics.list();
}
