import { match } from 'path-to-regexp';
import { AppError, DEFAULT_MAX_PARAM_LENGTH } from '@nap/contracts';
import type { OperationDef } from '@nap/contracts';

export interface RouteMatch {
  op: OperationDef;
  params: Record<string, string>;
}

interface DynamicRoute {
  op: OperationDef;
  match: (path: string) => false | { params: Partial<Record<string, string | string[]>> };
}

/**
 * The catalog's routes, looked up in one step: literal routes from a map, routes with `:params`
 * by their segment count, literal segments before parameters in the same place
 * (`/adapters/brokers/mapping` before `/adapters/:name`). Express's router would try every route
 * in turn on every request; with ~190 routes that was the gateway's largest cost after sockets.
 */
export class RouteTable {
  private readonly literal = new Map<string, OperationDef>();
  private readonly dynamic = new Map<string, DynamicRoute[]>();
  /** Path shape → methods, for 405 and the Allow header. */
  private readonly methods: { op: OperationDef; test: (path: string) => boolean }[] = [];

  private readonly maxParamLength: number;

  constructor(catalog: readonly OperationDef[], options: { maxParamLength?: number } = {}) {
    this.maxParamLength = options.maxParamLength ?? DEFAULT_MAX_PARAM_LENGTH;
    const rank = (path: string) => path.split('/').map((segment) => (segment.startsWith(':') ? '1' : '0')).join('');
    const routed = catalog.filter((op) => op.http !== undefined).sort((a, b) => (rank(a.http?.path ?? '') < rank(b.http?.path ?? '') ? -1 : 1));
    for (const op of routed) {
      const { method, path } = op.http as NonNullable<OperationDef['http']>;
      const matcher = match(path, { decode: decodeParam });
      // for a 405 only the shape matters: a parameter that does not decode still names the route
      const shape = match(path, { decode: false });
      this.methods.push({ op, test: (p) => shape(p) !== false });
      if (!path.includes(':')) {
        this.literal.set(`${method} ${path}`, op);
        continue;
      }
      const key = `${method} ${segmentCount(path)}`;
      const list = this.dynamic.get(key) ?? [];
      list.push({ op, match: matcher });
      this.dynamic.set(key, list);
    }
  }

  find(method: string, path: string): RouteMatch | undefined {
    const normalized = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const op = this.literal.get(`${method} ${normalized}`);
    if (op) return { op, params: {} };
    for (const route of this.dynamic.get(`${method} ${segmentCount(normalized)}`) ?? []) {
      const found = route.match(normalized);
      if (found) {
        const params: Record<string, string> = {};
        for (const [name, value] of Object.entries(found.params)) {
          if (typeof value !== 'string') continue;
          if (value.length > this.maxParamLength) {
            throw new AppError('PARAMETER_TOO_LONG', `Path parameter "${name}" is ${value.length} characters long; the limit is ${this.maxParamLength} (NAP_MAX_PARAM_LENGTH)`, { details: [{ parameter: name, limit: this.maxParamLength }] });
          }
          params[name] = value;
        }
        return { op: route.op, params };
      }
    }
    return undefined;
  }

  /** Methods that the path answers to, for a 405. */
  allowed(path: string): string[] {
    return [...new Set(this.methods.filter((m) => m.test(path)).map((m) => m.op.http?.method ?? ''))].sort();
  }
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
