import type { Static, TSchema } from '@sinclair/typebox';
import type { AuthMode, BodyLimit, HttpMethod, JsonSchema, OperationDef } from './types';
import { DEFAULT_TIMEOUT_MS } from './types';
import type { Role } from '../roles';
import type { ServiceName } from '../services';
import { closed, withId } from '../schemas/common';

/**
 * Bus timeouts by kind of operation, in milliseconds: `short` for health, discovery and credential
 * checks; `default` for store reads and writes; `lifecycle` for starting and stopping adapters and
 * applications; `device` for operations that talk to devices or an orchestrator; `long` for
 * playbooks, infrastructure-as-code runs and bulk imports.
 */
export const TIMEOUTS_MS = {
  short: 5_000,
  default: DEFAULT_TIMEOUT_MS,
  lifecycle: 60_000,
  device: 120_000,
  long: 600_000,
} as const;

/** What a catalog file writes for one operation; {@link defineOperations} derives the rest. */
export interface OperationSpec {
  name: string;
  summary: string;
  http?: { method: HttpMethod; path: string };
  roles: readonly Role[];
  auth?: AuthMode;
  /** Schemas of path parameters that need more than a non-empty string (descriptions, patterns). */
  params?: Record<string, TSchema>;
  query?: TSchema;
  body?: TSchema;
  /** Schema of the success body. */
  response?: TSchema;
  /** Success status; 200 unless given. */
  status?: number;
  /** Media type of the success body when it is not JSON. */
  contentType?: string;
  timeoutMs?: number;
  addition?: boolean;
  accepts?: readonly string[];
  /** A larger body limit than the default, for operations that take whole documents. */
  bodyLimit?: BodyLimit;
  notes?: string;
  /** See {@link OperationDef.auditKind}. */
  auditKind?: string;
  /** See {@link OperationDef.auditEach}. */
  auditEach?: string;
  /** See {@link OperationDef.auditName}. */
  auditName?: string;
  /** See {@link OperationDef.auditDevices}. */
  auditDevices?: string;
  /** See {@link OperationDef.safe}. */
  safe?: boolean;
}

/** Names of the `:params` of an Express-style path, as a union of string literals. */
export type PathParamNames<P extends string> = P extends `${string}:${infer Param}/${infer Rest}`
  ? Param | PathParamNames<`/${Rest}`>
  : P extends `${string}:${infer Param}`
    ? Param
    : never;

/** The types an operation's schemas describe: what a handler receives and answers. */
export interface OperationTypes {
  params: unknown;
  query: unknown;
  body: unknown;
  response: unknown;
}

type ParamsType<S extends OperationSpec> = S['http'] extends { path: infer P extends string }
  ? { [K in PathParamNames<P>]: string }
  : Record<string, never>;
type QueryType<S extends OperationSpec> = S['query'] extends TSchema ? Static<S['query']> : Record<string, unknown>;
type BodyType<S extends OperationSpec> = S['body'] extends TSchema ? Static<S['body']> : undefined;
type ResponseType<S extends OperationSpec> = S['response'] extends TSchema ? Static<S['response']> : unknown;

/** The types of the operation a spec describes. */
export type TypesOf<S extends OperationSpec> = {
  params: ParamsType<S>;
  query: QueryType<S>;
  body: BodyType<S>;
  response: ResponseType<S>;
};

declare const TYPES: unique symbol;

/**
 * A catalog entry together with the types of its request and answer. The types exist for the
 * compiler only (the member is never set): handler maps, the bus client and tests read them through
 * `InputOf`, `BodyOf` and `ResponseOf` in `@nap/contracts`.
 */
export interface TypedOperation<Id extends string = string, T extends OperationTypes = OperationTypes> extends OperationDef {
  readonly id: Id;
  readonly [TYPES]?: T;
}

/** The types carried by a {@link TypedOperation}. */
export type TypesOfOperation<O> = O extends TypedOperation<string, infer T> ? T : never;

/** The entries {@link defineOperations} returns for `Specs`, keyed by operation id. */
export type DefinedOperations<S extends ServiceName, Specs extends readonly OperationSpec[]> = {
  readonly [E in Specs[number] as `${S}.${E['name']}`]: TypedOperation<`${S}.${E['name']}`, TypesOf<E>>;
};

const PATH_PARAM = /:([A-Za-z_][A-Za-z0-9_]*)/g;

/** Names of the `:params` of an Express-style path, in order. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(PATH_PARAM)].map((m) => m[1] as string);
}

function paramsSchema(id: string, path: string, overrides: Record<string, TSchema>): JsonSchema | undefined {
  const names = pathParams(path);
  for (const key of Object.keys(overrides)) {
    if (!names.includes(key)) throw new Error(`Catalog entry ${id}: params schema names "${key}", which is not a parameter of ${path}`);
  }
  if (names.length === 0) return undefined;
  const properties: Record<string, TSchema> = {};
  for (const n of names) properties[n] = { type: 'string', minLength: 1, ...overrides[n] } as TSchema;
  return withId(`nap:${id}/params`, closed(properties, names));
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

/**
 * Builds the catalog entries of one service, keyed by operation id: ids `<service>.<name>`, a params
 * schema from the path's `:params`, `$id`s `nap:<id>/params|query|body|response`, default timeout and
 * status. The entries are deeply frozen: the catalog is shared data, copy a schema before changing
 * it. The result's type carries each operation's request and answer types.
 */
export function defineOperations<S extends ServiceName, const Specs extends readonly OperationSpec[]>(
  service: S,
  inputs: Specs,
): DefinedOperations<S, Specs> {
  const out: Record<string, OperationDef> = {};
  for (const input of inputs) {
    const id = `${service}.${input.name}`;
    if (id in out) throw new Error(`Catalog entry ${id} is defined twice`);
    const request: OperationDef['request'] = {};
    if (input.http !== undefined) {
      const params = paramsSchema(id, input.http.path, input.params ?? {});
      if (params !== undefined) request.params = params;
    } else if (input.params !== undefined || input.query !== undefined) {
      throw new Error(`Catalog entry ${id}: a bus-only operation has a body, not params or a query`);
    }
    if (input.query !== undefined) request.query = withId(`nap:${id}/query`, input.query);
    if (input.body !== undefined) request.body = withId(`nap:${id}/body`, input.body);

    const response: OperationDef['response'] = { status: input.status ?? SUCCESS_STATUS };
    if (input.response !== undefined) response.body = withId(`nap:${id}/response`, input.response);
    if (input.contentType !== undefined) response.contentType = input.contentType;

    const op: OperationDef = {
      id,
      service,
      name: input.name,
      summary: input.summary,
      roles: [...input.roles],
      request,
      response,
      timeoutMs: input.timeoutMs ?? TIMEOUTS_MS.default,
    };
    if (input.http !== undefined) op.http = { ...input.http };
    if (input.auth !== undefined) op.auth = input.auth;
    if (input.addition === true) op.addition = true;
    if (input.accepts !== undefined) op.accepts = [...input.accepts];
    if (input.bodyLimit !== undefined && input.bodyLimit !== 'default') op.bodyLimit = input.bodyLimit;
    if (input.notes !== undefined) op.notes = input.notes;
    if (input.auditKind !== undefined) op.auditKind = input.auditKind;
    if (input.auditEach !== undefined) op.auditEach = input.auditEach;
    if (input.auditName !== undefined) op.auditName = input.auditName;
    if (input.auditDevices !== undefined) op.auditDevices = input.auditDevices;
    if (input.safe !== undefined) op.safe = input.safe;
    out[id] = deepFreeze(op);
  }
  // the keys are exactly `${service}.${name}` of the inputs, which is what the mapped type says
  return Object.freeze(out) as DefinedOperations<S, Specs>;
}

/**
 * Every answer of a route that succeeds is 200, creations included (`{ status: 'Created', message,
 * data }` where the spec shows it), as Itential's platform answers them: its command line ipctl
 * accepts exactly 200 from every create and import, and the Ansible collection fails a task on
 * anything else. An operation may still name another status (`status`).
 */
const SUCCESS_STATUS = 200;

/** A query schema that accepts no member ("No parameters"). */
export function noQuery() {
  return closed({});
}
