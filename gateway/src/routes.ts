import { pathToRegexp } from 'path-to-regexp';
import { AppError, DEFAULT_MAX_PARAM_LENGTH } from '@nap/contracts';
import type { OperationDef } from '@nap/contracts';

export interface RouteMatch {
  op: OperationDef;
  params: Record<string, string>;
}

interface DynamicRoute {
  op: OperationDef;
  method: string;
  /** Literal (`0`) or parameter (`1`) per segment: a smaller rank is a more literal route. */
  rank: string;
  /**
   * The route's expression (path-to-regexp): matches the path's shape with parameters left
   * encoded, so which route a path belongs to does not depend on its encoding.
   */
  regexp: RegExp;
  /** The parameter of each capture group, in order. */
  names: string[];
}

function rankOf(path: string): string {
  return path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '1' : '0'))
    .join('');
}

/**
 * The catalog's routes, looked up in one step: literal routes from a map, routes with `:params`
 * by their segment count and first segment, literal segments before parameters in the same place
 * (`/adapters/brokers/mapping` before `/adapters/:name`). Express's router would try every route
 * in turn on every request; with ~250 routes that was the gateway's largest cost after sockets.
 *
 * A path belongs to its most literal route, whatever the method: a route with a parameter where
 * another method's route has a literal segment does not capture that path (`GET
 * /operations-manager/jobs/:jobId` does not answer `GET /operations-manager/jobs/start`, which is
 * the literal route `POST /operations-manager/jobs/start`: that is a 405 with `Allow: POST`).
 */
export class RouteTable {
  /** Literal path → method → operation. */
  private readonly literal = new Map<string, Map<string, OperationDef>>();
  /**
   * Dynamic routes of every method by segment count, then first segment (`operations-manager`),
   * most literal first; routes whose first segment is a parameter are in every bucket of their
   * count, and alone under `:`. A path is only ever tried against the routes of its bucket.
   */
  private readonly dynamic = new Map<number, Map<string, DynamicRoute[]>>();

  private readonly maxParamLength: number;

  constructor(catalog: readonly OperationDef[], options: { maxParamLength?: number } = {}) {
    this.maxParamLength = options.maxParamLength ?? DEFAULT_MAX_PARAM_LENGTH;
    const routed = catalog
      .filter((op) => op.http !== undefined)
      .sort((a, b) => (rankOf(a.http?.path ?? '') < rankOf(b.http?.path ?? '') ? -1 : 1));
    const openFirst: DynamicRoute[] = [];
    for (const op of routed) {
      const { method, path } = op.http as NonNullable<OperationDef['http']>;
      if (!path.includes(':')) {
        const methods = this.literal.get(path) ?? new Map<string, OperationDef>();
        if (!methods.has(method)) methods.set(method, op);
        this.literal.set(path, methods);
        continue;
      }
      const { regexp, keys } = pathToRegexp(path);
      const route: DynamicRoute = { op, method, rank: rankOf(path), regexp, names: keys.map((key) => key.name) };
      const first = firstSegment(path);
      if (first.startsWith(':')) openFirst.push(route);
      else this.bucketsOf(segmentCount(path)).set(first, [...(this.bucketsOf(segmentCount(path)).get(first) ?? []), route]);
    }
    // a route with a parameter first may answer any first segment: it joins every bucket of its count, in rank order
    for (const route of openFirst) {
      const buckets = this.bucketsOf(segmentCount(route.op.http?.path ?? ''));
      buckets.set(':', [...(buckets.get(':') ?? []), route]);
      for (const [first, list] of buckets) {
        if (first !== ':')
          buckets.set(
            first,
            [...list, route].sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0)),
          );
      }
    }
  }

  /**
   * The route of a request, or undefined (404, or 405 when {@link allowed} names methods). A literal
   * path belongs to its literal routes whatever the method. Otherwise one pass over the path's bucket
   * in rank order: the first route of any method that matches sets the best rank; a route of this
   * method of that rank answers; a less literal one never does.
   */
  find(method: string, path: string): RouteMatch | undefined {
    const normalized = normalize(path);
    const literal = this.literal.get(normalized);
    if (literal) {
      const op = literal.get(method);
      // a literal path of another method is not a value of this method's parameter
      return op ? { op, params: {} } : undefined;
    }
    let best: string | undefined;
    for (const route of this.bucket(normalized)) {
      if (best !== undefined && route.rank > best) return undefined;
      const found = route.regexp.exec(normalized);
      if (found === null) continue;
      // the bucket is in rank order: the first route that matches, of any method, is the most literal
      best ??= route.rank;
      if (route.method === method) return { op: route.op, params: this.decodeParams(route.names, found) };
    }
    return undefined;
  }

  /** Methods that the path answers to (those of its most literal routes, HEAD wherever GET), for a 405. */
  allowed(path: string): string[] {
    const methods = this.methodsOf(path);
    if (methods.includes('GET')) methods.push('HEAD');
    return methods.sort();
  }

  private methodsOf(path: string): string[] {
    const normalized = normalize(path);
    const literal = this.literal.get(normalized);
    if (literal) return [...literal.keys()];
    let best: string | undefined;
    const methods = new Set<string>();
    for (const route of this.bucket(normalized)) {
      if (best !== undefined && route.rank > best) break;
      if (!route.regexp.test(normalized)) continue;
      best = route.rank;
      methods.add(route.method);
    }
    return [...methods];
  }

  private bucketsOf(count: number): Map<string, DynamicRoute[]> {
    let buckets = this.dynamic.get(count);
    if (buckets === undefined) {
      buckets = new Map();
      this.dynamic.set(count, buckets);
    }
    return buckets;
  }

  /** The dynamic routes a path may belong to: those of its segment count and first segment. */
  private bucket(path: string): readonly DynamicRoute[] {
    const buckets = this.dynamic.get(segmentCount(path));
    if (buckets === undefined) return [];
    return buckets.get(firstSegment(path)) ?? buckets.get(':') ?? [];
  }

  /** Decodes the parameters of the chosen route: malformed percent-encoding is 400, an over-long value `PARAMETER_TOO_LONG`. */
  private decodeParams(names: readonly string[], found: RegExpExecArray): Record<string, string> {
    const params: Record<string, string> = {};
    for (let i = 1; i < found.length; i++) {
      const encoded = found[i];
      const name = names[i - 1];
      if (encoded === undefined || name === undefined) continue;
      const value = encoded.includes('%') ? decodeParam(encoded) : encoded;
      if (value.length > this.maxParamLength) {
        throw new AppError(
          'PARAMETER_TOO_LONG',
          `Path parameter "${name}" is ${value.length} characters long; the limit is ${this.maxParamLength} (NAP_MAX_PARAM_LENGTH)`,
          { details: [{ parameter: name, limit: this.maxParamLength }] },
        );
      }
      params[name] = value;
    }
    return params;
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
    throw new AppError(
      'BAD_REQUEST',
      `The path segment "${value.slice(0, 64)}" is not valid percent-encoding (a % must be followed by two hex digits of UTF-8)`,
    );
  }
}

function segmentCount(path: string): number {
  let n = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) n++;
  return n;
}

/** The first segment of a path (`operations-manager` of `/operations-manager/jobs/x`). */
function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return end < 0 ? path.slice(1) : path.slice(1, end);
}
