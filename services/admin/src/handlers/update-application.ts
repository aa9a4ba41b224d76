import type { Handler } from '@nap/bus';
import { APPLICATIONS, escapeUnprintable } from '@nap/contracts';
import { applicationNamed } from '../domain/applications';
import { invalidMember } from '../domain/validation-error';
import { applyApplicationDocument } from '../steps/applications';
import type { AdminContext } from '../context';

/** `PUT /applications/:name`: description, loggerProps and live settings; the name and the model stay. */
export function updateApplication(svc: AdminContext): Handler<'admin.updateApplication'> {
  return async (input, ctx) => {
    const body = input.body.properties;
    const app = applicationNamed(input.params.name);
    const service = APPLICATIONS[app].service;
    if (body.name !== undefined && body.name !== app)
      throw invalidMember('body.properties.name', `is "${escapeUnprintable(body.name)}"; an application keeps its name ("${app}")`);
    if (body.model !== undefined && body.model !== `@nap/${service}`)
      throw invalidMember('body.properties.model', `is "${escapeUnprintable(body.model)}"; ${app} is served by @nap/${service}`);
    return applyApplicationDocument(svc, app, body, ctx.caller.username, ctx);
  };
}
