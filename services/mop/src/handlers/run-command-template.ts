import type { Handler } from '@nap/bus';
import type { MopContext } from '../context';
import { runCommandTemplate as runTemplate } from '../domain/run';
import { recordRun } from '../runs';
import { busCommandRunner } from './devices';

/** `POST /mop/RunCommandTemplate`: every command of a template on devices; the run is kept in the history. */
export function runCommandTemplate(svc: MopContext): Handler<'mop.RunCommandTemplate'> {
  return async (input, ctx) => {
    const started = Date.now();
    const template = svc.templates.checked(await svc.templates.getByName(input.body.template));
    const variables = input.body.variables ?? {};
    const output = await runTemplate(template, input.body.devices, variables, {
      engine: svc.engine,
      runCommand: busCommandRunner(ctx),
      concurrency: svc.deviceConcurrency,
      ruleOptions: svc.ruleOptions,
    });
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
