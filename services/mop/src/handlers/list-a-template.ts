import type { Handler } from '@nap/bus';
import type { MopContext } from '../deps';

/** `GET /mop/listATemplate/:name`: an array of zero or one template. */
export function listATemplate(mop: MopContext): Handler<'mop.listATemplate'> {
  return async (input) => {
    const found = await mop.templates.findByName(input.params.name);
    return found === null ? [] : [found];
  };
}
