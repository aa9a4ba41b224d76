import type { AuthMode, HttpMethod, JsonSchema, OperationDef } from './types';
import { DEFAULT_TIMEOUT_MS } from './types';
import type { Role } from '../roles';
import type { ServiceName } from '../services';
import { embed } from '../schemas/common';

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
  params?: Record<string, JsonSchema>;
  query?: JsonSchema;
  body?: JsonSchema;
  /** Schema of the success body. */
  response?: JsonSchema;
  /** Success status; 200 unless given. */
  status?: number;
  /** Media type of the success body when it is not JSON. */
  contentType?: string;
  timeoutMs?: number;
  addition?: boolean;
  accepts?: readonly string[];
  notes?: string;
}

const PATH_PARAM = /:([A-Za-z_][A-Za-z0-9_]*)/g;

/** Names of the `:params` of an Express-style path, in order. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(PATH_PARAM)].map((m) => m[1] as string);
}

/** `schema` as a top-level schema of its own, with the given `$id` (any `$id` it had is replaced). */
function withId(id: string, schema: JsonSchema): JsonSchema {
  return { $id: id, ...embed(schema) };
}

function paramsSchema(id: string, path: string, overrides: Record<string, JsonSchema>): JsonSchema | undefined {
  const names = pathParams(path);
  for (const key of Object.keys(overrides)) {
    if (!names.includes(key)) throw new Error(`Catalog entry ${id}: params schema names "${key}", which is not a parameter of ${path}`);
  }
  if (names.length === 0) return undefined;
  const properties: Record<string, JsonSchema> = {};
  for (const n of names) properties[n] = { type: 'string', minLength: 1, ...overrides[n] };
  return { $id: `nap:${id}/params`, type: 'object', properties, required: names, additionalProperties: false };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

/**
 * Builds the catalog entries of one service: ids `<service>.<name>`, a params schema from the path's
 * `:params`, `$id`s `nap:<id>/params|query|body|response`, default timeout and status. The result is
 * deeply frozen: the catalog is shared data, copy a schema before changing it.
 */
export function defineOperations(service: ServiceName, inputs: readonly OperationSpec[]): readonly OperationDef[] {
  const ops = inputs.map((input): OperationDef => {
    const id = `${service}.${input.name}`;
    const request: OperationDef['request'] = {};
    if (input.http !== undefined) {
      const params = paramsSchema(id, input.http.path, input.params ?? {});
      if (params !== undefined) request.params = params;
    } else if (input.params !== undefined || input.query !== undefined) {
      throw new Error(`Catalog entry ${id}: a bus-only operation has a body, not params or a query`);
    }
    if (input.query !== undefined) request.query = withId(`nap:${id}/query`, input.query);
    if (input.body !== undefined) request.body = withId(`nap:${id}/body`, input.body);

    const response: OperationDef['response'] = { status: input.status ?? defaultStatus(input) };
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
    if (input.notes !== undefined) op.notes = input.notes;
    return op;
  });
  return deepFreeze(ops);
}

/**
 * Creations over HTTP answer 201 (`{ status: 'Created', message, data }` where the spec shows it);
 * create-or-update routes and index creation answer 200. Everything else 200.
 */
const NOT_CREATIONS = new Set(['createInventoryDevice', 'createIndexes']);

function defaultStatus(input: OperationSpec): number {
  return input.http?.method === 'POST' && /^create/.test(input.name) && !NOT_CREATIONS.has(input.name) ? 201 : 200;
}

/** A query schema that accepts no member ("No parameters"). */
export function noQuery(): JsonSchema {
  return { type: 'object', properties: {}, additionalProperties: false };
}
