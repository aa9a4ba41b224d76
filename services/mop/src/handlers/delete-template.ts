import type { Handler } from '@nap/bus';
import type { MopContext } from '../deps';

/** `POST /mop/deleteTemplate/:id`. */
export function deleteTemplate(mop: MopContext): Handler<'mop.deleteTemplate'> {
  return async (input) => {
    const gone = await mop.templates.delete(input.params.id);
    return { status: 'success', message: `Command template "${gone.name}" deleted` };
  };
}
