import type { Handler } from '@nap/bus';
import { AppError, assertNoMisspelledBody, assertSecretTextWithin } from '@nap/contracts';
import { keepRun } from '../context';
import type { MopContext } from '../context';
import { isRunOutputs, runAnalyticTemplate } from '../domain/analytic';

/** `POST /mop/runAnalyticsTemplate`: compares two RunCommandTemplate results with an analytic template. */
export function runAnalyticsTemplate(svc: MopContext): Handler<'mop.runAnalyticsTemplate'> {
  return async (input, ctx) => {
    assertNoMisspelledBody(ctx.operation, input.body);
    const started = Date.now();
    const { pre, post } = input.body;
    if (!isRunOutputs(pre))
      throw new AppError(
        'MOP_ANALYTIC_INPUT_INVALID',
        'pre must be a RunCommandTemplate result with commands_results (each entry with device and response texts)',
      );
    if (!isRunOutputs(post))
      throw new AppError(
        'MOP_ANALYTIC_INPUT_INVALID',
        'post must be a RunCommandTemplate result with commands_results (each entry with device and response texts)',
      );
    const template = svc.analytics.runnable(await svc.analytics.getByName(input.body.analytic_template_name));
    const variables = input.body.variables ?? {};
    assertSecretTextWithin(variables, 'body.variables');
    const output = await runAnalyticTemplate(template, pre, post, variables, svc.engine, svc.ruleOptions);
    const devices = [...new Set(output.commands_results.map((r) => r.device))];
    return keepRun(svc, ctx, { kind: 'analytic', template: template.name, devices, variables, started, output });
  };
}
