import type { Handler } from '@nap/bus';
import { AppError, assertNoMisspelledBody, assertSecretTextWithin } from '@nap/contracts';
import { commandRunner } from '../clients/device-gateway';
import { keepRun, runSettings, runTemplate } from '../context';
import type { MopContext } from '../context';

/** `POST /mop/RunCommandTemplateSingleCommand`: command `commandIndex` of a template (by id or name) on devices. */
export function runCommandTemplateSingleCommand(svc: MopContext): Handler<'mop.RunCommandTemplateSingleCommand'> {
  return async (input, ctx) => {
    assertNoMisspelledBody(ctx.operation, input.body);
    const started = Date.now();
    const template = svc.templates.checked(await svc.templates.getByIdOrName(input.body.templateId));
    const { commandIndex, devices } = input.body;
    const count = template.commands?.length ?? 0;
    if (commandIndex >= count) {
      throw new AppError(
        'MOP_COMMAND_INDEX_OUT_OF_RANGE',
        `Command template "${template.name}" has ${count} commands; commandIndex ${commandIndex} is not one of them`,
      );
    }
    const variables = input.body.variables ?? {};
    assertSecretTextWithin(variables, 'body.variables');
    const output = await runTemplate(runSettings(svc, ctx.deadline), commandRunner(ctx), template, devices, variables, [commandIndex]);
    return keepRun(svc, ctx, { kind: 'command', template: template.name, devices, variables, started, output });
  };
}
