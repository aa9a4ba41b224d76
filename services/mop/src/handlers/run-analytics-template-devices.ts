import type { Handler } from '@nap/bus';
import type { CommandTemplate } from '@nap/contracts';
import type { MopContext } from '../context';
import { runAnalyticTemplate } from '../domain/analytic';
import { runCommandTemplate } from '../domain/run';
import { recordRun } from '../runs';
import { busCommandRunner } from './devices';

/** `POST /mop/runAnalyticsTemplateDevices`: runs the pre and post commands on the devices, then compares them. */
export function runAnalyticsTemplateDevices(svc: MopContext): Handler<'mop.runAnalyticsTemplateDevices'> {
  return async (input, ctx) => {
    const started = Date.now();
    const template = svc.analytics.checked(await svc.analytics.getByName(input.body.analytic_template_name));
    const variables = input.body.variables ?? {};
    const pairs = template.prepostCommands ?? [];
    const side = (member: 'preRawCommand' | 'postRawCommand'): CommandTemplate => ({
      name: `${template.name} (${member === 'preRawCommand' ? 'pre' : 'post'})`,
      commands: pairs.map((p) => {
        const command = p[member];
        return { command: typeof command === 'string' ? command : '', rules: [] };
      }),
    });
    const run = { engine: svc.engine, runCommand: busCommandRunner(ctx), concurrency: svc.deviceConcurrency, ruleOptions: svc.ruleOptions };
    const pre = await runCommandTemplate(side('preRawCommand'), input.body.devices, variables, run);
    const post = await runCommandTemplate(side('postRawCommand'), input.body.devices, variables, run);
    const output = await runAnalyticTemplate(template, pre, post, variables, svc.engine, svc.ruleOptions);
    const runId = await recordRun(svc.runs, {
      kind: 'analytic',
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
