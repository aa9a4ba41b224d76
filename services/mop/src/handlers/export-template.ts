import type { Handler } from '@nap/bus';
import type { MopContext } from '../deps';

/** `POST /mop/export`: one template, command or analytic, as stored. */
export function exportTemplate(mop: MopContext): Handler<'mop.exportTemplate'> {
  return async (input) => {
    const repo = input.body.options.type === 'analytic' ? mop.analytics : mop.templates;
    return repo.getByName(input.body.options.name);
  };
}
