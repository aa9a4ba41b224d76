import type { Handler } from '@nap/bus';
import { APPLICATIONS } from '@nap/contracts';
import { carriedOut, lifecycleOf, unprotectedApplication } from '../domain/applications';
import type { AdminContext } from '../context';

/** `PUT /applications/:name/restart`: stops every replica (each finishes what it holds) and starts it again. */
export function restartApplication(svc: AdminContext): Handler<'admin.restartApplication'> {
  return async (input, ctx) => {
    const by = ctx.caller.username;
    const app = unprotectedApplication(input.params.name, 'restarted');
    const service = APPLICATIONS[app].service;
    const replicas = await svc.replicas.discover(service);
    const state = await svc.applicationStates.change(service, { stopped: false }, `restarted by ${by} (${app})`, by);
    carriedOut(await svc.reconciler.pause(replicas, state.revision), 'stop');
    return lifecycleOf(app, await svc.reconciler.push(service));
  };
}
