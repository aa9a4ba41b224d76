import type { Handler } from '@nap/bus';
import type { StudioContext } from '../context';

/** Bus-only `studio.renderJinjaText`: a Jinja2 text rendered for another service (gateway-devices' device templates). */
export function renderJinjaText(svc: StudioContext): Handler<'studio.renderJinjaText'> {
  return async (input, ctx) => {
    const { template, context, profile, label } = input.body;
    return {
      rendered: await svc.renderer.renderJinja({
        template,
        context,
        profile,
        subject: label ?? 'The template',
        deadline: ctx.deadline,
        owner: ctx.caller.id,
      }),
    };
  };
}
