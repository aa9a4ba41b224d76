import type { Handler } from '@nap/bus';
import { newLinkRecord } from '../domain/links';
import type { AdminContext } from '../context';

/** `POST /external-links`: a named http or https address; names are unique. */
export function createLink(svc: AdminContext): Handler<'admin.createLink'> {
  return async (input, ctx) => svc.links.insert(newLinkRecord(input.body, ctx.caller.username, new Date().toISOString()));
}
