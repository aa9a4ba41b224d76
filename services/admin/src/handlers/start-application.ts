import type { Handler } from '@nap/bus';
import { APPLICATIONS } from '@nap/contracts';
import { applicationNamed, lifecycleOf } from '../domain/applications';
import type { AdminContext } from '../context';
import { auditApplicationChange } from '../steps/applications';

/** `PUT /applications/:name/start`: every replica of the application's service takes requests again, new ones too. */
export function startApplication(svc: AdminContext): Handler<'admin.startApplication'> {
  return async (input, ctx) => {
    const by = ctx.caller.username;
    const app = applicationNamed(input.params.name);
    const service = APPLICATIONS[app].service;
    const before = await svc.applicationStates.get(service);
    const after = await svc.applicationStates.change(service, { stopped: false }, `started by ${by} (${app})`, by);
    auditApplicationChange(ctx, app, before, after);
    return lifecycleOf(app, await svc.reconciler.push(service));
  };
}
