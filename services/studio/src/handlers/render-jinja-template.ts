import type { Handler } from '@nap/bus';
import { assertNoMisspelledBody } from '@nap/contracts';
import type { StudioContext } from '../context';
import { findTemplate } from '../context';

/** `POST /template_builder/templates/:name/renderJinja` (and the task `TemplateBuilder.renderJinjaTemplate`): a stored jinja2 template rendered with `context`. */
export function renderJinjaTemplate(svc: StudioContext): Handler<'studio.renderJinjaTemplate'> {
  return async (input, ctx) => {
    // `contxt` would render the template with no context
    assertNoMisspelledBody(ctx.operation, input.body);
    const template = await findTemplate(svc, input.params.name, 'jinja2');
    const renderedTemplate = await svc.renderer.renderJinja({
      template: template.template,
      context: input.body.context,
      profile: 'templateBuilder',
      subject: `Template "${template.name}"`,
      deadline: ctx.deadline,
      owner: ctx.caller.id,
    });
    return { renderedTemplate };
  };
}
