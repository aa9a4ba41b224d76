import { match } from 'path-to-regexp';
import { AppError, DEFAULT_MAX_PARAM_LENGTH } from '@nap/contracts';
import type { OperationDef } from '@nap/contracts';

export interface RouteMatch {
  op: OperationDef;
  params: Record<string, string>;
}

interface DynamicRoute {
  op: OperationDef;
  /** Literal (`0`) or parameter (`1`) per segment: a smaller rank is a more literal route. */
  rank: string;
  /** Matches the path's shape, parameters left encoded: which route a path belongs to does not depend on its encoding. */
  shape: (path: string) => false | { params: Partial<Record<string, string | string[]>> };
}

function rankOf(path: string): string {
  return path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '1' : '0'))
    .join('');
}

/**
 * The catalog's routes, looked up in one step: literal routes from a map, routes with `:params`
 * by their segment count, literal segments before parameters in the same place
 * (`/adapters/brokers/mapping` before `/adapters/:name`). Express's router would try every route
 * in turn on every request; with ~250 routes that was the gateway's largest cost after sockets.
 *
 * A path belongs to its most literal route, whatever the method: a route with a parameter where
 * another method's route has a literal segment does not capture that path (`GET
 * /operations-manager/jobs/:jobId` does not answer `GET /operations-manager/jobs/start`, which is
 * the literal route `POST /operations-manager/jobs/start`: that is a 405 with `Allow: POST`).
 */
export class RouteTable {
  private readonly literal = new Map<string, OperationDef>();
  /** Literal path → its methods. */
  private readonly literalPaths = new Map<string, string[]>();
  private readonly dynamic = new Map<string, DynamicRoute[]>();
  /** Segment count → the dynamic routes of every method, most literal first. */
  private readonly dynamicAll = new Map<number, DynamicRoute[]>();

  private readonly maxParamLength: number;

  constructor(catalog: readonly OperationDef[], options: { maxParamLength?: number } = {}) {
    this.maxParamLength = options.maxParamLength ?? DEFAULT_MAX_PARAM_LENGTH;
    const routed = catalog.filter((op) => op.http !== undefined).sort((a, b) => (rankOf(a.http?.path ?? '') < rankOf(b.http?.path ?? '') ? -1 : 1));
    for (const op of routed) {
      const { method, path } = op.http as NonNullable<OperationDef['http']>;
      if (!path.includes(':')) {
        this.literal.set(`${method} ${path}`, op);
        this.literalPaths.set(path, [...(this.literalPaths.get(path) ?? []), method]);
        continue;
      }
      const route: DynamicRoute = { op, rank: rankOf(path), shape: match(path, { decode: false }) };
      const key = `${method} ${segmentCount(path)}`;
      this.dynamic.set(key, [...(this.dynamic.get(key) ?? []), route]);
      this.dynamicAll.set(segmentCount(path), [...(this.dynamicAll.get(segmentCount(path)) ?? []), route]);
    }
  }

  find(method: string, path: string): RouteMatch | undefined {
    const normalized = normalize(path);
    const op = this.literal.get(`${method} ${normalized}`);
    if (op) return { op, params: {} };
    // a literal path of another method is not a value of this method's parameter
    if (this.literalPaths.has(normalized)) return undefined;
    for (const route of this.dynamic.get(`${method} ${segmentCount(normalized)}`) ?? []) {
      const found = route.shape(normalized);
      if (!found) continue;
      if (this.bestRank(normalized) < route.rank) return undefined;
      const params: Record<string, string> = {};
      for (const [name, raw] of Object.entries(found.params)) {
        if (typeof raw !== 'string') continue;
        const value = decodeParam(raw);
        if (value.length > this.maxParamLength) {
          throw new AppError('PARAMETER_TOO_LONG', `Path parameter "${name}" is ${value.length} characters long; the limit is ${this.maxParamLength} (NAP_MAX_PARAM_LENGTH)`, { details: [{ parameter: name, limit: this.maxParamLength }] });
        }
        params[name] = value;
      }
      return { op: route.op, params };
    }
    return undefined;
  }

  /** Methods that the path answers to (those of its most literal routes), for a 405. */
  allowed(path: string): string[] {
    const normalized = normalize(path);
    const literal = this.literalPaths.get(normalized);
    if (literal) return [...new Set(literal)].sort();
    const best = this.bestRank(normalized);
    const routes = (this.dynamicAll.get(segmentCount(normalized)) ?? []).filter((r) => r.rank === best && r.shape(normalized) !== false);
    return [...new Set(routes.map((r) => r.op.http?.method ?? ''))].sort();
  }

  /** Rank of the most literal dynamic route of any method that matches the path. */
  private bestRank(path: string): string {
    for (const route of this.dynamicAll.get(segmentCount(path)) ?? []) if (route.shape(path) !== false) return route.rank;
    return '~';
  }
}

function normalize(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** `decodeURIComponent`, with malformed percent-encoding (`%ff`, `%zz`) a 400 instead of a `URIError`. */
function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new AppError('BAD_REQUEST', `The path segment "${value.slice(0, 64)}" is not valid percent-encoding (a % must be followed by two hex digits of UTF-8)`);
  }
}

function segmentCount(path: string): number {
  let n = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) n++;
  return n;
}
