import type { Handler } from '@nap/bus';
import { assertNoMisspelledBody, assertSecretTextWithin } from '@nap/contracts';
import { commandRunner } from '../clients/device-gateway';
import { keepRun, runSettings, runTemplate } from '../context';
import type { MopContext } from '../context';

/** `POST /mop/RunCommandTemplate`: every command of a template on devices; the run is kept in the history. */
export function runCommandTemplate(svc: MopContext): Handler<'mop.RunCommandTemplate'> {
  return async (input, ctx) => {
    assertNoMisspelledBody(ctx.operation, input.body);
    const started = Date.now();
    const template = svc.templates.runnable(await svc.templates.getByName(input.body.template));
    const { devices } = input.body;
    const variables = input.body.variables ?? {};
    assertSecretTextWithin(variables, 'body.variables');
    const output = await runTemplate(runSettings(svc, ctx.deadline), commandRunner(ctx), template, devices, variables);
    return keepRun(svc, ctx, { kind: 'command', template: template.name, devices, variables, started, output });
  };
}
