import { AppError, declaredSecretPaths, runSchemaOfForm } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import { isRecord } from '@nap/util';
import { startFromTrigger } from '../context';
import type { WorkflowContext } from '../context';
import { toPublicJob } from '../domain/job-model';
import { assertEnabled } from '../domain/trigger-model';

/**
 * `POST /operations-manager/triggers/manual/:id/run`: the form data (over the trigger's defaults),
 * checked against the JSON Schema of a JSON form (formbuilder forms have none; a list the form fills
 * when shown checks nothing, see {@link runSchemaOfForm}), starts the job; the job in the envelope.
 */
export function runManualTrigger(svc: WorkflowContext): Handler<'workflow.runManualTrigger'> {
  return async (input, ctx) => {
    const trigger = await svc.triggers.get(input.params.id);
    if (trigger.type !== 'manual')
      throw new AppError('UNPROCESSABLE', `Trigger "${trigger.name}" is a ${trigger.type} trigger, not a manual one`);
    assertEnabled(trigger);
    let data: Record<string, unknown> = { ...(trigger.formData ?? {}), ...(input.body.formData ?? {}) };
    let declared: string[][] | undefined;
    if (typeof trigger.formId === 'string' && trigger.formId !== '') {
      const form = await ctx.call('studio.getForm', { params: { id: trigger.formId } });
      // the form's password fields are the job's secrets, whatever their names
      declared = declaredSecretPaths(form.schema);
      const schema = runSchemaOfForm(form.schema);
      const checked = await svc.triggerStarter.checkSchema(
        `form ${form._id}@${form.last_updated}`,
        `form "${form.name}"`,
        schema,
        data,
        'body.formData',
      );
      if (isRecord(checked)) data = checked;
    }
    return {
      message: 'Successfully created the requested item',
      data: toPublicJob(await startFromTrigger(svc, trigger, data, ctx, declared)),
      metadata: {},
    };
  };
}
