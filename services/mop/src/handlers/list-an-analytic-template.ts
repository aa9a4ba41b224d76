import type { Handler } from '@nap/bus';
import type { MopContext } from '../context';

/** `GET /mop/listAnAnalyticTemplate/:name`: an array of zero or one template. */
export function listAnAnalyticTemplate(svc: MopContext): Handler<'mop.listAnAnalyticTemplate'> {
  return async (input) => {
    const found = await svc.analytics.findByName(input.params.name);
    return found === null ? [] : [found];
  };
}
