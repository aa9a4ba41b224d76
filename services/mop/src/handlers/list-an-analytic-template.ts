import type { Handler } from '@nap/bus';
import type { MopContext } from '../deps';

/** `GET /mop/listAnAnalyticTemplate/:name`: an array of zero or one template. */
export function listAnAnalyticTemplate(mop: MopContext): Handler<'mop.listAnAnalyticTemplate'> {
  return async (input) => {
    const found = await mop.analytics.findByName(input.params.name);
    return found === null ? [] : [found];
  };
}
