import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';

/** Bus-only `studio.renderJinjaText`: a Jinja2 text rendered for another service (gateway-devices' device templates). */
export function renderJinjaText(deps: StudioDeps): Handler<'studio.renderJinjaText'> {
  return async (input) => {
    const { template, context, profile, label } = input.body;
    return { rendered: await deps.renderer.renderJinja({ template, context, profile, subject: label ?? 'The template' }) };
  };
}
