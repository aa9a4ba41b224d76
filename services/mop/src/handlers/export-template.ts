import type { Handler } from '@nap/bus';
import type { MopContext } from '../context';

/** `POST /mop/export`: one template, command or analytic, as stored. */
export function exportTemplate(svc: MopContext): Handler<'mop.exportTemplate'> {
  return async (input) => {
    const repo = (input.body.options.type ?? input.body.type) === 'analytic' ? svc.analytics : svc.templates;
    return repo.getByName(input.body.options.name);
  };
}
