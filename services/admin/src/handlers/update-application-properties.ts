import type { Handler } from '@nap/bus';
import { applicationNamed } from '../domain/applications';
import { applyApplicationDocument } from '../steps/applications';
import type { AdminContext } from '../context';

/** `PUT /applications/:name/properties`: replaces the live settings of the application's service; each replica applies them at once. */
export function updateApplicationProperties(svc: AdminContext): Handler<'admin.updateApplicationProperties'> {
  return async (input, ctx) =>
    applyApplicationDocument(svc, applicationNamed(input.params.name), { properties: input.body.properties }, ctx.caller.username, ctx);
}
