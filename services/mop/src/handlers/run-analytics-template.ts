import type { Handler } from '@nap/bus';
import { AppError, assertNoMisspelledBody, assertSecretTextWithin } from '@nap/contracts';
import { keepRun, runSettings } from '../context';
import type { MopContext } from '../context';
import { isRunOutputs, runAnalyticTemplate } from '../domain/analytic';

/**
 * `POST /mop/runAnalyticsTemplate`: compares two RunCommandTemplate results with an analytic template.
 * 422 `MOP_ANALYTIC_INPUT_INVALID` when pre or post is not such a result, or when neither holds a result.
 */
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
    // nothing on either side compares nothing: it would pass without a device asked, as a template without pairs would
    if (pre.commands_results.length === 0 && post.commands_results.length === 0)
      throw new AppError(
        'MOP_ANALYTIC_INPUT_INVALID',
        'pre and post hold no command results (both commands_results are empty), so there is nothing to compare; give the results of RunCommandTemplate runs on the devices',
        {
          details: [
            { member: 'body.pre.commands_results', message: 'must have at least 1 item to compare' },
            { member: 'body.post.commands_results', message: 'must have at least 1 item to compare' },
          ],
        },
      );
    const template = svc.analytics.runnable(await svc.analytics.getByName(input.body.analytic_template_name));
    const variables = input.body.variables ?? {};
    assertSecretTextWithin(variables, 'body.variables');
    const settings = runSettings(svc, ctx.deadline);
    const output = await runAnalyticTemplate(template, pre, post, variables, settings.engine, settings.ruleOptions);
    const devices = [...new Set(output.commands_results.map((r) => r.device))];
    return keepRun(svc, ctx, { kind: 'analytic', template: template.name, devices, variables, started, output });
  };
}
