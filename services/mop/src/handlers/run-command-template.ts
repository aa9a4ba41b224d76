import type { Handler } from '@nap/bus';
import type { MopContext } from '../deps';
import { runCommandTemplate as runTemplate } from '../domain/run';
import { recordRun } from '../runs';
import { busCommandRunner } from './devices';

/** `POST /mop/RunCommandTemplate`: every command of a template on devices; the run is kept in the history. */
export function runCommandTemplate(mop: MopContext): Handler<'mop.RunCommandTemplate'> {
  return async (input, ctx) => {
    const started = Date.now();
    const template = mop.templates.checked(await mop.templates.getByName(input.body.template));
    const variables = input.body.variables ?? {};
    const output = await runTemplate(template, input.body.devices, variables, {
      engine: mop.engine,
      runCommand: busCommandRunner(ctx),
      concurrency: mop.deviceConcurrency,
      ruleOptions: mop.ruleOptions,
    });
    const runId = await recordRun(mop.runs, {
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
