import { Type } from '@sinclair/typebox';
import { PRINTABLE_NAME_PATTERN } from '../names';
import type {
  ObjectOptions,
  SchemaOptions,
  Static,
  TArray,
  TBoolean,
  TInteger,
  TLiteral,
  TNull,
  TNumber,
  TObject,
  TOptional,
  TProperties,
  TSchema,
  TString,
  TUnion,
  TUnknown,
  TUnsafe,
  ArrayOptions,
  StringOptions,
  NumberOptions,
  IntegerOptions,
} from '@sinclair/typebox';

/**
 * Building blocks for the JSON Schemas of the catalog. Each builder returns a TypeBox schema: plain
 * JSON Schema at run time (what Ajv compiles and `/openapi.json` shows) whose TypeScript type is
 * derived with `Static<typeof schema>`. A schema is the single source of its type: change a member
 * here and every handler and caller that reads it stops compiling until it agrees.
 *
 * Every builder returns a fresh object, so schemas never share mutable parts.
 */

export { Type };
export type { Static, TSchema };

/** What a value of each described pattern looks like, for the message that refuses a value (see {@link describedPattern}). */
const PATTERN_TEXTS = new Map<string, string>();

/**
 * `pattern`, kept with `text`, what a value of it looks like ("a UUID v4, such as …"): a value the
 * pattern refuses is answered `<member> must be <text>`, not with the regular expression.
 */
export function describedPattern(pattern: string, text: string): string {
  PATTERN_TEXTS.set(pattern, text);
  return pattern;
}

/** What a value of `pattern` looks like, when the pattern was declared with {@link describedPattern}. */
export function patternText(pattern: string): string | undefined {
  return PATTERN_TEXTS.get(pattern);
}

/** A UUID of version 4 (the `4` nibble and the `8`/`9`/`a`/`b` variant), any letter case. */
export const UUID_V4_PATTERN = describedPattern(
  '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$',
  'a UUID of version 4, such as 3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b',
);

/** A string schema; `extra` adds keywords such as `minLength` or `description`. */
export function str(extra: StringOptions = {}): TString {
  return Type.String(extra);
}

/** A non-empty string: names and ids that identify something. */
export function name(description?: string): TString {
  return description === undefined ? Type.String({ minLength: 1 }) : Type.String({ minLength: 1, description });
}

/**
 * A name people choose for something they keep (a project, workflow, automation, form, template,
 * transformation, trigger, device, link): non-empty, and without the control, line-separator and
 * bidirectional formatting characters of {@link PRINTABLE_NAME_PATTERN}. A name refused for one of
 * them is a 400 `VALIDATION_FAILED` naming the member and the character (U+XXXX). Only for what a
 * request gives: schemas of stored documents keep `str()`, so that a name stored before the rule
 * can still be read (and renamed).
 */
export function printableName(description?: string): TString {
  return Type.String({ minLength: 1, pattern: PRINTABLE_NAME_PATTERN, ...(description === undefined ? {} : { description }) });
}

/** An integer schema. */
export function int(extra: IntegerOptions = {}): TInteger {
  return Type.Integer(extra);
}

/** A number schema. */
export function num(extra: NumberOptions = {}): TNumber {
  return Type.Number(extra);
}

/** A boolean schema. */
export function bool(extra: SchemaOptions = {}): TBoolean {
  return Type.Boolean(extra);
}

/** An array schema with the given item schema. */
export function arr<T extends TSchema>(items: T, extra: ArrayOptions = {}): TArray<T> {
  return Type.Array(items, extra);
}

/** An array of strings (group ids, names, commands). */
export function strings(extra: ArrayOptions = {}): TArray<TString> {
  return Type.Array(Type.String(), extra);
}

/** One of the given strings (`{ type: 'string', enum: [...] }` on the wire). */
export function oneOf<const V extends readonly string[]>(values: V, extra: SchemaOptions = {}): TUnsafe<V[number]> {
  return Type.Unsafe<V[number]>({ type: 'string', enum: [...values], ...extra });
}

/** Exactly this value (`{ const: value }`). */
export function literal<const V extends string | number | boolean>(value: V, extra: SchemaOptions = {}): TLiteral<V> {
  return Type.Literal(value, extra);
}

/** The properties of `P` with every member not named in `R` made optional. */
export type WithRequired<P extends TProperties, R extends PropertyKey> = {
  [K in keyof P]: K extends R ? P[K] : TOptional<P[K]>;
};

function withRequired<P extends TProperties>(properties: P, required: readonly PropertyKey[]): TProperties {
  const out: TProperties = {};
  for (const [key, schema] of Object.entries(properties)) out[key] = required.includes(key) ? schema : Type.Optional(schema);
  return out;
}

/**
 * An object schema with the named members required. Members it does not name are accepted on the
 * wire (documents whose fields the spec leaves open, response documents that must accept real data)
 * but are not part of its type; use {@link open} when code reads members the schema does not name.
 */
export function obj<P extends TProperties, const R extends readonly (keyof P & string)[] = []>(
  properties: P,
  required?: R,
  extra: ObjectOptions = {},
): TObject<WithRequired<P, R[number]>> {
  return Type.Object(withRequired(properties, required ?? []), extra) as TObject<WithRequired<P, R[number]>>;
}

/** An object schema that accepts no member beyond `properties` (the spec's "no other member"). */
export function closed<P extends TProperties, const R extends readonly (keyof P & string)[] = []>(
  properties: P,
  required?: R,
  extra: ObjectOptions = {},
): TObject<WithRequired<P, R[number]>> {
  return obj(properties, required, { additionalProperties: false, ...extra });
}

/** The static type of an open document: its named members plus any other member, `unknown`. */
export type OpenStatic<P extends TProperties, R extends PropertyKey> = Static<TObject<WithRequired<P, R>>> & { [member: string]: unknown };

/**
 * A document schema whose members beyond `properties` are part of the data (workflow documents, job
 * documents, templates stored as given): the same JSON Schema as {@link obj}, typed with an index
 * signature so code can read the members the schema leaves open.
 */
export function open<P extends TProperties, const R extends readonly (keyof P & string)[] = []>(
  properties: P,
  required?: R,
  extra: ObjectOptions = {},
): TUnsafe<OpenStatic<P, R[number]>> {
  return Type.Unsafe<OpenStatic<P, R[number]>>(obj(properties, required, extra));
}

/** The static type of `T` with at least one of the members `K` present. */
export type WithOneOf<T, K extends keyof T> = { [P in K]-?: T & Required<Pick<T, P>> }[K];

/**
 * `schema` (an object schema whose members `keys` are optional) with
 * `anyOf: [{ required: [k1] }, { required: [k2] }, …]`: at least one of them must be present. The
 * static type says so too (a union with one of the members required in each branch).
 */
export function withOneOf<T extends TObject, const K extends readonly (keyof Static<T> & string)[]>(
  schema: T,
  keys: K,
): TUnsafe<WithOneOf<Static<T>, K[number]>> {
  return Type.Unsafe<WithOneOf<Static<T>, K[number]>>({ ...schema, anyOf: keys.map((key) => ({ required: [key] })) });
}

/** Any JSON object. */
export function anyObject(description?: string): TUnsafe<Record<string, unknown>> {
  return Type.Unsafe<Record<string, unknown>>(description === undefined ? { type: 'object' } : { type: 'object', description });
}

/** Any JSON value. */
export function anyValue(extra: SchemaOptions = {}): TUnknown {
  return Type.Unknown(extra);
}

/** A map of arbitrary member names to values of `values` (`additionalProperties` on the wire). */
export function mapOf<V extends TSchema>(values: V, extra: SchemaOptions = {}): TUnsafe<Record<string, Static<V>>> {
  return Type.Unsafe<Record<string, Static<V>>>({ type: 'object', additionalProperties: values, ...extra });
}

/** `schema` or `null`. */
export function nullable<T extends TSchema>(schema: T): TUnion<[T, TNull]> {
  return Type.Union([schema, Type.Null()]);
}

/** An ISO 8601 timestamp string (`<timestamp>` of the spec); not format-checked, documents from older systems vary. */
export function timestamp(description = 'ISO 8601 timestamp'): TString {
  return Type.String({ description });
}

/** An epoch-millisecond number (`created`, `lastUpdated` of templates, job error entries). */
export function epochMs(description = 'epoch milliseconds'): TInteger {
  return Type.Integer({ description });
}

/** A `read`/`write` access object whose arrays hold group ids. */
export function gbac() {
  return obj({ write: strings(), read: strings() }, [], { description: 'group-based access: group ids allowed to write and to read' });
}

/**
 * A shared schema to nest inside another: the same schema without its top-level `$id` (nested copies
 * keep every operation schema self-contained, with no `$ref` across schemas, so the gateway and the
 * OpenAPI generator can use each one alone), with `extra` keywords added. The type is kept.
 */
export function embed<T extends TSchema>(schema: T, extra: SchemaOptions = {}): T {
  const { $id: _id, ...rest } = schema;
  return { ...rest, ...extra } as T;
}

/** `schema` with a top-level `$id` of its own; the type is kept. */
export function withId<T extends TSchema>(id: string, schema: T): T {
  return { ...embed(schema), $id: id } as T;
}

/** The sort order query member: 1 ascending, -1 descending (query strings are coerced to integers). */
export function sortOrder(): TUnsafe<1 | -1> {
  return Type.Unsafe<1 | -1>({ type: 'integer', enum: [1, -1], description: 'sort order: 1 ascending, -1 descending' });
}

/** A page of items: `{ items, total, skip, limit }`, the shape of the lists this platform adds. */
export function pageOf<T extends TSchema>(items: T) {
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

/** `{ results, total }`: the list shape of the platform administration routes (as `GET /integrations`). */
export function resultsOf<T extends TSchema>(items: T) {
  return obj({ results: arr(items), total: int({ minimum: 0 }) }, ['results']);
}

/** `{ status, message }`: the acknowledgement of deletions and state changes this platform designs. */
export function acknowledgement() {
  return obj({ status: str({ description: 'success' }), message: str() }, ['status', 'message']);
}

/** A page of documents as `{ items, total, skip, limit }` on the wire. */
export type Page<T> = { items: T[]; total: number; skip?: number; limit?: number };

/** `{ results, total }` as the platform administration lists answer. */
export type Results<T> = { results: T[]; total?: number };

/** `{ status, message }` acknowledgement. */
export type Acknowledgement = Static<ReturnType<typeof acknowledgement>>;
