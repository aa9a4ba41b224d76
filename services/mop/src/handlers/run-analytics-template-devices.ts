import type { Handler } from '@nap/bus';
import { assertNoMisspelledBody, assertSecretTextWithin } from '@nap/contracts';
import { commandRunner } from '../clients/device-gateway';
import { keepRun, runSettings, runTemplate } from '../context';
import type { MopContext } from '../context';
import { runAnalyticTemplate, sideTemplate } from '../domain/analytic';

/** `POST /mop/runAnalyticsTemplateDevices`: runs the pre and post commands on the devices, then compares them. */
export function runAnalyticsTemplateDevices(svc: MopContext): Handler<'mop.runAnalyticsTemplateDevices'> {
  return async (input, ctx) => {
    assertNoMisspelledBody(ctx.operation, input.body);
    const started = Date.now();
    const template = svc.analytics.runnable(await svc.analytics.getByName(input.body.analytic_template_name));
    const { devices } = input.body;
    const variables = input.body.variables ?? {};
    assertSecretTextWithin(variables, 'body.variables');
    const run = commandRunner(ctx);
    const settings = runSettings(svc, ctx.deadline);
    const pre = await runTemplate(settings, run, sideTemplate(template, 'pre'), devices, variables);
    const post = await runTemplate(settings, run, sideTemplate(template, 'post'), devices, variables);
    const output = await runAnalyticTemplate(template, pre, post, variables, settings.engine, settings.ruleOptions);
    return keepRun(svc, ctx, { kind: 'analytic', template: template.name, devices, variables, started, output });
  };
}
