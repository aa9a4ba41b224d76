import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';
import { findTemplate } from './find-template';

/** `POST /template_builder/templates/:name/renderJinja` (and the task `TemplateBuilder.renderJinjaTemplate`): a stored jinja2 template rendered with `context`. */
export function renderJinjaTemplate(deps: StudioDeps): Handler<'studio.renderJinjaTemplate'> {
  return async (input) => {
    const template = await findTemplate(deps, input.params.name, 'jinja2');
    const renderedTemplate = await deps.renderer.renderJinja({
      template: template.template,
      context: input.body.context,
      profile: 'templateBuilder',
      subject: `Template "${template.name}"`,
    });
    return { renderedTemplate };
  };
}
