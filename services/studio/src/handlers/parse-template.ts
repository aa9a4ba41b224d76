import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import type { StudioContext } from '../context';
import { findTemplate } from '../context';

/** `POST /template_builder/parseTemplate` (and the task `TemplateBuilder.parseTemplate`): TextFSM records of `text`. */
export function parseTemplate(svc: StudioContext): Handler<'studio.parseTemplate'> {
  return async (input, ctx) => {
    const { name, template, text } = input.body;
    const { deadline } = ctx;
    if (name !== undefined && template !== undefined) {
      throw new AppError('VALIDATION_FAILED', 'Give either name (a stored textfsm template) or template (a TextFSM text), not both', {
        details: [{ member: 'body.template', message: 'body.template must be absent when body.name is given' }],
      });
    }
    if (name !== undefined) {
      const stored = await findTemplate(svc, name, 'textfsm');
      return svc.renderer.parseTextFsm({
        template: stored.template,
        text,
        subject: `Template "${stored.name}"`,
        deadline,
        owner: ctx.caller.id,
      });
    }
    return svc.renderer.parseTextFsm({ template: template ?? '', text, subject: 'The template', deadline, owner: ctx.caller.id });
  };
}
