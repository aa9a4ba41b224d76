import type { Handler } from '@nap/bus';
import { APPLICATIONS } from '@nap/contracts';
import { lifecycleOf, unprotectedApplication } from '../domain/applications';
import type { AdminContext } from '../context';
import { auditApplicationChange } from '../steps/applications';

/** `PUT /applications/:name/stop`: every replica of the application's service pauses (finishing what it holds), new ones too, until started. */
export function stopApplication(svc: AdminContext): Handler<'admin.stopApplication'> {
  return async (input, ctx) => {
    const by = ctx.caller.username;
    const app = unprotectedApplication(input.params.name, 'stopped');
    const service = APPLICATIONS[app].service;
    const before = await svc.applicationStates.get(service);
    const after = await svc.applicationStates.change(service, { stopped: true }, `stopped by ${by} (${app})`, by);
    auditApplicationChange(ctx, app, before, after);
    return lifecycleOf(app, await svc.reconciler.push(service));
  };
}
