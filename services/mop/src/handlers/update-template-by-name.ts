import type { Handler } from '@nap/bus';
import type { MopContext } from '../context';

/** `PUT /mop/updateTemplate/:name`: replaces the template of that name (as Itential's MCP server updates one), answers it. */
export function updateTemplateByName(svc: MopContext): Handler<'mop.updateTemplateByName'> {
  return async (input, ctx) => svc.templates.updateByName(input.params.name, input.body.mop, ctx.caller.username, ctx);
}
