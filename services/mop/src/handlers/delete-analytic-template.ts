import type { Handler } from '@nap/bus';
import type { MopContext } from '../deps';

/** `POST /mop/deleteAnalyticTemplate/:id`. */
export function deleteAnalyticTemplate(mop: MopContext): Handler<'mop.deleteAnalyticTemplate'> {
  return async (input) => {
    const gone = await mop.analytics.delete(input.params.id);
    return { status: 'success', message: `Analytic template "${gone.name}" deleted` };
  };
}
