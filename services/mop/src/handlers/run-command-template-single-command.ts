import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import type { MopContext } from '../context';
import { runCommandTemplate as runTemplate } from '../domain/run';
import { recordRun } from '../runs';
import { busCommandRunner } from './devices';

/** `POST /mop/RunCommandTemplateSingleCommand`: command `commandIndex` of a template (by id or name) on devices. */
export function runCommandTemplateSingleCommand(svc: MopContext): Handler<'mop.RunCommandTemplateSingleCommand'> {
  return async (input, ctx) => {
    const started = Date.now();
    const template = svc.templates.checked(await svc.templates.getByIdOrName(input.body.templateId));
    const count = template.commands?.length ?? 0;
    if (input.body.commandIndex >= count) {
      throw new AppError(
        'MOP_COMMAND_INDEX_OUT_OF_RANGE',
        `Command template "${template.name}" has ${count} commands; commandIndex ${input.body.commandIndex} is not one of them`,
      );
    }
    const variables = input.body.variables ?? {};
    const output = await runTemplate(
      template,
      input.body.devices,
      variables,
      { engine: svc.engine, runCommand: busCommandRunner(ctx), concurrency: svc.deviceConcurrency, ruleOptions: svc.ruleOptions },
      [input.body.commandIndex],
    );
    const runId = await recordRun(svc.runs, {
      kind: 'command',
      template: template.name,
      devices: input.body.devices,
      variables,
      started,
      caller: ctx.caller,
      output,
    });
    return { ...output, runId };
  };
}
