import type { IncomingMessage } from 'node:http';
import qs from 'qs';
import { AppError } from '@nap/contracts';
import type { RouteMatch, RouteTable } from './routes';

/** The catalog route of a request, with its parsed query string. */
export interface OperationRoute extends RouteMatch {
  query: Record<string, unknown>;
}

/**
 * Finds the catalog operation a request is for, in one step ({@link RouteTable}), and parses its
 * query string; undefined when the path is no catalog route (express answers it: health, docs,
 * 404, 405).
 *
 * A HEAD request is the GET route's.
 *
 * Errors: `BAD_REQUEST` for malformed percent-encoding in the path or an unreadable query string,
 * `VALIDATION_FAILED` for a query member named `__proto__`, `PARAMETER_TOO_LONG` for a path
 * parameter over the limit.
 */
export function lookUpRoute(routes: RouteTable, req: IncomingMessage): OperationRoute | undefined {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  // HEAD is GET without the body (RFC 9110 §9.3.2): node's response leaves the body out itself
  const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
  const found = routes.find(method, path);
  if (!found) return undefined;
  let query: Record<string, unknown>;
  try {
    query = q < 0 ? {} : (qs.parse(url.slice(q + 1), { allowPrototypes: true }) as Record<string, unknown>);
  } catch {
    throw new AppError('BAD_REQUEST', 'The query string cannot be read');
  }
  if (q >= 0) refuseProtoKeys(url.slice(q + 1));
  return { op: found.op, params: found.params, query };
}

/** A `__proto__` anywhere in a query key (`__proto__=1`, `equals[__proto__]=1`), as `qs` reads keys. */
const PROTO_KEY = /(^|\[|\.)__proto__(\]|\[|\.|$)/;

/**
 * Refuses a query member named `__proto__`: `qs` drops it without a word, so a route that refuses
 * members it does not serve would answer as if it had not been sent. 400 `VALIDATION_FAILED` naming it.
 */
function refuseProtoKeys(search: string): void {
  for (const pair of search.split('&')) {
    const eq = pair.indexOf('=');
    let key: string;
    try {
      key = decodeURIComponent((eq < 0 ? pair : pair.slice(0, eq)).replace(/\+/g, ' '));
    } catch {
      continue; // qs read it as it is: not a __proto__ key
    }
    if (PROTO_KEY.test(key))
      throw new AppError('VALIDATION_FAILED', `The query member "${key.slice(0, 80)}" is not allowed`, {
        details: [{ member: `query.${key.slice(0, 80)}`, message: 'is not allowed' }],
      });
  }
}
