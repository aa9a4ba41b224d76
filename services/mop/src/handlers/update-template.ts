import type { Handler } from '@nap/bus';
import type { CommandTemplate } from '@nap/contracts';
import type { MopContext } from '../deps';

/** `POST /mop/updateTemplate/:mopID`: replaces the template, answers it. */
export function updateTemplate(mop: MopContext): Handler {
  return (async (input: { params: { mopID: string }; body: { mop: CommandTemplate } }, ctx) =>
    mop.templates.update(input.params.mopID, input.body.mop, ctx.caller.username)) as Handler;
}
