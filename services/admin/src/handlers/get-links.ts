import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/** `GET /external-links`: all links. */
export function getLinks(svc: AdminContext): Handler<'admin.getLinks'> {
  return async (input) => svc.links.list(input.query);
}
