import type { JsonSchema } from '../catalog/types';

/**
 * Building blocks for the JSON Schemas of the catalog. Every helper returns a fresh plain object, so
 * schemas never share mutable parts.
 */

/** A UUID of version 4 (the `4` nibble and the `8`/`9`/`a`/`b` variant), any letter case. */
export const UUID_V4_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$';

/** A string schema; `extra` adds keywords such as `minLength` or `description`. */
export function str(extra: JsonSchema = {}): JsonSchema {
  return { type: 'string', ...extra };
}

/** A non-empty string: names and ids that identify something. */
export function name(description?: string): JsonSchema {
  return description === undefined ? { type: 'string', minLength: 1 } : { type: 'string', minLength: 1, description };
}

/** An integer schema. */
export function int(extra: JsonSchema = {}): JsonSchema {
  return { type: 'integer', ...extra };
}

/** A number schema. */
export function num(extra: JsonSchema = {}): JsonSchema {
  return { type: 'number', ...extra };
}

/** A boolean schema. */
export function bool(extra: JsonSchema = {}): JsonSchema {
  return { type: 'boolean', ...extra };
}

/** An array schema with the given item schema. */
export function arr(items: JsonSchema, extra: JsonSchema = {}): JsonSchema {
  return { type: 'array', items, ...extra };
}

/** An array of strings (group ids, names, commands). */
export function strings(extra: JsonSchema = {}): JsonSchema {
  return arr({ type: 'string' }, extra);
}

/**
 * An object schema that accepts members it does not name: documents whose fields the spec leaves
 * open, and every response document (responses must accept real data).
 */
export function obj(properties: Record<string, JsonSchema> = {}, required: readonly string[] = [], extra: JsonSchema = {}): JsonSchema {
  const schema: JsonSchema = { type: 'object', properties };
  if (required.length > 0) schema.required = [...required];
  return { ...schema, ...extra };
}

/** An object schema that accepts no member beyond `properties` (the spec's "no other member"). */
export function closed(properties: Record<string, JsonSchema>, required: readonly string[] = [], extra: JsonSchema = {}): JsonSchema {
  return obj(properties, required, { additionalProperties: false, ...extra });
}

/** Any JSON object. */
export function anyObject(description?: string): JsonSchema {
  return description === undefined ? { type: 'object' } : { type: 'object', description };
}

/** A map of arbitrary member names to values of `values`. */
export function mapOf(values: JsonSchema, extra: JsonSchema = {}): JsonSchema {
  return { type: 'object', additionalProperties: values, ...extra };
}

/** `schema` or `null`. */
export function nullable(schema: JsonSchema): JsonSchema {
  return { anyOf: [schema, { type: 'null' }] };
}

/** An ISO 8601 timestamp string (`<timestamp>` of the spec); not format-checked, documents from older systems vary. */
export function timestamp(description = 'ISO 8601 timestamp'): JsonSchema {
  return { type: 'string', description };
}

/** An epoch-millisecond number (`created`, `lastUpdated` of templates, job error entries). */
export function epochMs(description = 'epoch milliseconds'): JsonSchema {
  return { type: 'integer', description };
}

/** A `read`/`write` access object whose arrays hold group ids. */
export function gbac(): JsonSchema {
  return obj({ write: strings(), read: strings() }, [], { description: 'group-based access: group ids allowed to write and to read' });
}

/**
 * A copy of a shared schema without its top-level `$id`, to nest it inside another schema. Nested
 * copies keep every operation schema self-contained (no `$ref` across schemas), so the gateway and the
 * OpenAPI generator can use each one alone.
 */
export function embed(schema: JsonSchema, extra: JsonSchema = {}): JsonSchema {
  const copy: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword !== '$id') copy[keyword] = value;
  }
  return { ...copy, ...extra };
}

/** The sort order query member: 1 ascending, -1 descending (query strings are coerced to integers). */
export function sortOrder(): JsonSchema {
  return { type: 'integer', enum: [1, -1], description: 'sort order: 1 ascending, -1 descending' };
}

/** A page of items: `{ items, total, skip, limit }`, the shape of the lists this platform adds. */
export function pageOf(items: JsonSchema): JsonSchema {
  return obj(
    {
      items: arr(items),
      total: int({ minimum: 0, description: 'number of documents matching the query' }),
      skip: int({ minimum: 0 }),
      limit: int({ minimum: 0 }),
    },
    ['items', 'total'],
  );
}

/** `{ results, total }`: the list shape of the platform administration routes (as operation 9). */
export function resultsOf(items: JsonSchema): JsonSchema {
  return obj({ results: arr(items), total: int({ minimum: 0 }) }, ['results']);
}

/** `{ status, message }`: the acknowledgement of deletions and state changes this platform designs. */
export function acknowledgement(): JsonSchema {
  return obj({ status: str({ description: 'success' }), message: str() }, ['status', 'message']);
}

/** A page of documents as `{ items, total, skip, limit }` on the wire. */
export interface Page<T> {
  items: T[];
  total: number;
  skip?: number;
  limit?: number;
}

/** `{ results, total }` as the platform administration lists answer. */
export interface Results<T> {
  results: T[];
  total?: number;
}

/** `{ status, message }` acknowledgement. */
export interface Acknowledgement {
  status: string;
  message: string;
}
