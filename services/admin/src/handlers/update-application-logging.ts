import type { Handler } from '@nap/bus';
import { APPLICATIONS } from '@nap/contracts';
import { applicationNamed, carriedOut } from '../domain/applications';
import { withLevel } from '../domain/logger-props';
import type { AdminContext } from '../context';

/** `PUT /applications/:name/loglevel`: the level every replica of the service logs at, at once; recorded under the transport (every one when absent). */
export function updateApplicationLogging(svc: AdminContext): Handler<'admin.updateApplicationLogging'> {
  return async (input, ctx) => {
    const by = ctx.caller.username;
    const { level, transport } = input.body.properties;
    const service = APPLICATIONS[applicationNamed(input.params.name)].service;
    const next = withLevel((await svc.applicationStates.get(service)).loggerProps, level, transport);
    await svc.applicationStates.change(
      service,
      { logLevel: level, loggerProps: next },
      `log level set to ${level}${transport ? ` (${transport})` : ''} by ${by}`,
      by,
    );
    carriedOut(await svc.reconciler.push(service), 'change the log level of');
    return next;
  };
}
