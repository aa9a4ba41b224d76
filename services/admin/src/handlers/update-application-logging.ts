import type { Handler } from '@nap/bus';
import { APPLICATIONS } from '@nap/contracts';
import { applicationNamed, carriedOut } from '../domain/applications';
import { withLevel } from '../domain/logger-props';
import type { AdminContext } from '../context';
import { auditApplicationChange } from '../steps/applications';

/** `PUT /applications/:name/loglevel`: the level every replica of the service logs at, at once; recorded under the transport (every one when absent). */
export function updateApplicationLogging(svc: AdminContext): Handler<'admin.updateApplicationLogging'> {
  return async (input, ctx) => {
    const by = ctx.caller.username;
    const { level, transport } = input.body.properties;
    const app = applicationNamed(input.params.name);
    const service = APPLICATIONS[app].service;
    const before = await svc.applicationStates.get(service);
    const next = withLevel(before.loggerProps, level, transport);
    const after = await svc.applicationStates.change(
      service,
      { logLevel: level, loggerProps: next },
      `log level set to ${level}${transport ? ` (${transport})` : ''} by ${by}`,
      by,
    );
    auditApplicationChange(ctx, app, before, after);
    carriedOut(await svc.reconciler.push(service), 'change the log level of');
    return next;
  };
}
