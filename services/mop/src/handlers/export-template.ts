import type { Handler } from '@nap/bus';
import type { MopContext } from '../deps';

/** `POST /mop/export`: one template, command or analytic, as stored. */
export function exportTemplate(mop: MopContext): Handler {
  return (async (input: { body: { options: { name: string; type?: 'template' | 'analytic' } } }) => {
    const repo = input.body.options.type === 'analytic' ? mop.analytics : mop.templates;
    return repo.getByName(input.body.options.name);
  }) as Handler;
}
