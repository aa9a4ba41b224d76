import type { Handler } from '@nap/bus';
import { reply } from '@nap/bus';
import { analyticTemplateInputSchema, commandTemplateInputSchema, parseAs } from '@nap/contracts';
import type { MopContext } from '../context';

/**
 * `POST /mop/import`: stores an exported template; a taken name becomes `name (n)`. The template is
 * checked as its create checks it (400 `VALIDATION_FAILED` naming `body.template.<member>`), so that
 * an import cannot store what no other route would, and lists answer what the spec says a template
 * holds; the members the service replaces (`_id`, stamps, authors) are not checked. The audit trail
 * names the template stored, of its kind.
 */
export function importTemplate(svc: MopContext): Handler<'mop.importTemplate'> {
  return async (input, ctx) => {
    const analytic = input.body.type === 'analytic';
    const { _id: _i, created: _c, createdBy: _cb, lastUpdated: _l, lastUpdatedBy: _lb, ...given } = input.body.template;
    parseAs(analytic ? analyticTemplateInputSchema : commandTemplateInputSchema, given, 'body.template');
    const repo = analytic ? svc.analytics : svc.templates;
    const stored = await repo.import(input.body.template, ctx.caller.username);
    ctx.audit({ target: { kind: repo.auditKind, id: stored._id, name: stored.name } });
    // ipctl checks 201 when it imports an analytic template, 200 for a command template
    return analytic ? reply(201, stored) : stored;
  };
}
