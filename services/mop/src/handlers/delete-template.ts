import type { Handler } from '@nap/bus';
import type { MopContext } from '../context';

/** `POST /mop/deleteTemplate/:id`. */
export function deleteTemplate(svc: MopContext): Handler<'mop.deleteTemplate'> {
  return async (input) => {
    const gone = await svc.templates.delete(input.params.id);
    return { status: 'success', message: `Command template "${gone.name}" deleted` };
  };
}
