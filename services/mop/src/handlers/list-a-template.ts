import type { Handler } from '@nap/bus';
import type { MopContext } from '../context';

/** `GET /mop/listATemplate/:name`: an array of zero or one template. */
export function listATemplate(svc: MopContext): Handler<'mop.listATemplate'> {
  return async (input) => {
    const found = await svc.templates.findByName(input.params.name);
    return found === null ? [] : [found];
  };
}
