import Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Static, TSchema } from '@sinclair/typebox';
import type { JsonSchema, OperationDef } from './catalog/types';
import { AppError } from './errors';
import type { ValidationProblem } from './errors';
import type { EventDef } from './events';
import { PRINTABLE_NAME_PATTERN, nameProblem } from './names';
import { patternText } from './schemas/common';
import { CONTRACTS_PRECOMPILED_DIR, precompiledValidator } from './precompiled-validators';
import type { ValidatorOptions } from './precompiled-validators';

/** The parts of a request as the gateway has parsed them. */
export interface RequestParts {
  /** Path parameters (strings). */
  params?: Record<string, unknown>;
  /** Query-string members as `qs` parsed them (strings, nested objects for bracketed members). */
  query?: Record<string, unknown>;
  /** The parsed JSON (or form) body. */
  body?: unknown;
}

type Part = 'params' | 'query' | 'body' | 'response';

/** Bodies, responses and documents: no type coercion (JSON carries types); defaults filled in; unknown keywords such as `example` allowed. */
export const BODY_VALIDATOR_OPTIONS: ValidatorOptions = Object.freeze({
  ajv: Object.freeze({ allErrors: true, useDefaults: true, coerceTypes: false, strict: false }),
  formats: true,
});

/**
 * Path parameters and query strings: everything arrives as text, so scalars are coerced to the
 * schema's type. Only the catalog's schemas are compiled with these, never a user's: they are checked
 * against JSON Schema's meta-schema by {@link compileOperation} (the catalog's tests), not by every
 * process at its first request (that compile cost each process ~30 ms).
 */
export const INPUT_VALIDATOR_OPTIONS: ValidatorOptions = Object.freeze({
  ajv: Object.freeze({ allErrors: true, useDefaults: true, coerceTypes: true, strict: false, validateSchema: false }),
  formats: true,
});

let bodyAjv: Ajv | undefined;
let inputAjv: Ajv | undefined;

function bodyValidator(): Ajv {
  if (bodyAjv === undefined) {
    bodyAjv = new Ajv({ ...BODY_VALIDATOR_OPTIONS.ajv });
    addFormats(bodyAjv);
  }
  return bodyAjv;
}

function inputValidator(): Ajv {
  if (inputAjv === undefined) {
    inputAjv = new Ajv({ ...INPUT_VALIDATOR_OPTIONS.ajv });
    addFormats(inputAjv);
  }
  return inputAjv;
}

const compiled = new WeakMap<JsonSchema, ValidateFunction>();
const precompiled = new WeakSet<JsonSchema>();

/**
 * The validator of `schema`, made once per schema object: the one the build generated for exactly
 * this schema and these options when there is one (the catalog's and the contracts' schemas, see
 * {@link precompiledValidator}), else compiled now (schemas made at run time, or changed since the build).
 */
function validatorFor(schema: JsonSchema, part: Part): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    const input = part === 'params' || part === 'query';
    validate = precompiledValidator(CONTRACTS_PRECOMPILED_DIR, schema, input ? INPUT_VALIDATOR_OPTIONS : BODY_VALIDATOR_OPTIONS);
    if (validate === undefined) validate = (input ? inputValidator() : bodyValidator()).compile(schema);
    else precompiled.add(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/**
 * True when `schema` is validated by the validator the build generated for it rather than one
 * compiled in this process; false too before its first validation. For tests and diagnostics.
 */
export function isPrecompiled(schema: JsonSchema): boolean {
  return precompiled.has(schema);
}

/**
 * Compiles every schema of an operation now (validation otherwise compiles each on first use). The
 * gateway and the services call it at start so that a broken schema stops the process, not a request.
 * Throws the Ajv error of the first schema that does not compile, prefixed with the operation id.
 */
export function compileOperation(op: OperationDef): void {
  const parts: [Part, JsonSchema | undefined][] = [
    ['params', op.request.params],
    ['query', op.request.query],
    ['body', op.request.body],
    ['response', op.response.body],
  ];
  for (const [part, schema] of parts) {
    if (schema === undefined) continue;
    try {
      // the meta-schema check the input validator leaves out
      const meta = bodyValidator();
      if ((part === 'params' || part === 'query') && !meta.validateSchema(schema)) throw new Error(meta.errorsText(meta.errors));
      validatorFor(schema, part);
    } catch (e) {
      throw new Error(`Operation ${op.id}: the ${part} schema does not compile: ${(e as Error).message}`, { cause: e });
    }
  }
}

/**
 * Validates a request against its operation's schemas and answers every problem found; an empty
 * array means valid. `parts` is changed in place: params and query members are coerced to the schema
 * types (`'10'` → `10`, `'true'` → `true`), defaults are filled in (`connection_options.port` = 22),
 * and a missing params/query/body becomes `{}` when the operation has a schema for it.
 *
 * The gateway removes credentials it accepted from the query (`token`) before calling this.
 * Problems name the member as a dotted path prefixed by the part (`body.options.adapterMap`,
 * `query.limit`, `body.automations[0].name`); they become `details` of a 400 `VALIDATION_FAILED`.
 */
export function validateRequest(op: OperationDef, parts: RequestParts): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  if (op.request.params !== undefined) {
    parts.params ??= {};
    problems.push(...check(op.request.params, 'params', parts.params));
  }
  if (op.request.query !== undefined) {
    parts.query ??= {};
    problems.push(...check(op.request.query, 'query', parts.query));
  }
  if (op.request.body !== undefined) {
    parts.body ??= {};
    problems.push(...check(op.request.body, 'body', parts.body));
  }
  return problems;
}

/**
 * Validates a success body against the operation's response schema (for tests and for services that
 * check what they answer). Does not change `body`. An operation without a response schema accepts anything.
 */
export function validateResponse(op: OperationDef, body: unknown): ValidationProblem[] {
  if (op.response.body === undefined) return [];
  return check(op.response.body, 'response', body);
}

/**
 * Validates any value against a schema of the contracts (event payloads, shared documents) with the
 * body rules: no coercion, defaults filled in. `label` prefixes the member paths of the problems.
 */
export function validateAgainst(schema: JsonSchema, value: unknown, label = 'value'): ValidationProblem[] {
  return check(schema, 'body', value, label);
}

/**
 * True when `value` is valid against `schema` (body rules: no coercion, defaults filled in), which
 * narrows it to the schema's type: the typed way to trust data read from a store, a file or another
 * system.
 */
export function isValid<T extends TSchema>(schema: T, value: unknown): value is Static<T> {
  return validatorFor(schema, 'body')(value);
}

/**
 * `value` typed by `schema` once it is valid against it; otherwise throws `VALIDATION_FAILED` (400)
 * with every problem, member paths prefixed by `label`.
 */
export function parseAs<T extends TSchema>(schema: T, value: unknown, label = 'value'): Static<T> {
  if (isValid(schema, value)) return value;
  const problems = check(schema, 'body', value, label);
  throw new AppError('VALIDATION_FAILED', problems.map((p) => p.message).join('; '), { details: problems });
}

function check(schema: JsonSchema, part: Part, data: unknown, label: string = part): ValidationProblem[] {
  const validate = validatorFor(schema, part);
  if (validate(data)) return [];
  return toProblems(label, validate.errors ?? [], data, schema);
}

/**
 * The schema object that holds the keyword an error comes from (`#/properties/role/required` → the
 * schema at `/properties/role`); undefined where the path leaves the root schema (a `$ref`).
 */
function schemaHolding(root: JsonSchema, e: ErrorObject): Record<string, unknown> | undefined {
  if (!e.schemaPath.startsWith('#/')) return undefined;
  const segments = e.schemaPath.slice(2).split('/').slice(0, -1);
  let current: unknown = root;
  for (const raw of segments) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current !== null && typeof current === 'object' && !Array.isArray(current) ? (current as Record<string, unknown>) : undefined;
}

function segmentsOf(instancePath: string): string[] {
  if (instancePath === '') return [];
  return instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** `body` + `/options/automations/0` → `body.options.automations[0]` (indices only where the data is an array). */
function memberPath(label: string, segments: readonly string[], data: unknown): string {
  let path = label;
  let current: unknown = data;
  for (const segment of segments) {
    if (Array.isArray(current)) {
      path += `[${segment}]`;
      current = current[Number(segment)];
    } else {
      path += `.${segment}`;
      current = current !== null && typeof current === 'object' ? (current as Record<string, unknown>)[segment] : undefined;
    }
  }
  return path;
}

function valueAt(segments: readonly string[], data: unknown): unknown {
  let current = data;
  for (const segment of segments) {
    if (current === null || typeof current !== 'object') return undefined;
    current = Array.isArray(current) ? current[Number(segment)] : (current as Record<string, unknown>)[segment];
  }
  return current;
}

function quote(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : JSON.stringify(value);
}

function describe(label: string, e: ErrorObject, data: unknown, root?: JsonSchema): ValidationProblem {
  const at = memberPath(label, segmentsOf(e.instancePath), data);
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      // in an open object, the member given misspelled (`varibles`) is the likelier mistake than one
      // left out (a closed object's additionalProperties problem says so already)
      const holder = valueAt(segmentsOf(e.instancePath), data);
      const open = root === undefined || schemaHolding(root, e)?.additionalProperties !== false;
      const given = open && isObjectValue(holder) ? Object.keys(holder).find((k) => closestName(k, [missing]) !== undefined) : undefined;
      const hint = given === undefined ? '' : ` (it has '${given}': did you mean '${missing}'?)`;
      return { member: `${at}.${missing}`, message: `${at} must have required property '${missing}'${hint}`, keyword: e.keyword };
    }
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      // a misspelled member (`varibles`) first: it is not one to put inside another
      const meant = root === undefined ? undefined : misspelled(root, e, extra);
      const inside = root === undefined || meant !== undefined ? undefined : loneWrapper(root, e, data);
      const hint =
        meant !== undefined
          ? `: did you mean '${meant}'?`
          : inside !== undefined
            ? `: it goes inside '${inside}' ({"${inside}": {"${extra}": …}})`
            : '';
      return { member: `${at}.${extra}`, message: `${at} must NOT have additional property '${extra}'${hint}`, keyword: e.keyword };
    }
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map(quote).join(', ');
      return { member: at, message: `${at} must be one of ${allowed}`, keyword: e.keyword };
    }
    case 'const':
      return { member: at, message: `${at} must be ${quote(params.allowedValue)}`, keyword: e.keyword };
    case 'pattern': {
      // a printable name: say which character is not allowed, not the pattern that refused it
      const value = params.pattern === PRINTABLE_NAME_PATTERN ? valueAt(segmentsOf(e.instancePath), data) : undefined;
      const problem = typeof value === 'string' ? nameProblem(value, at) : undefined;
      const looks = problem === undefined ? patternText(String(params.pattern)) : undefined;
      if (looks !== undefined) return { member: at, message: `${at} must be ${looks}`, keyword: e.keyword };
      return problem ?? { member: at, message: `${at} ${e.message ?? 'is invalid'}`, keyword: e.keyword };
    }
    case 'format': {
      // Ajv says `must match format "date-time"`: say what a value of that format looks like
      const example = FORMAT_EXAMPLES[String(params.format)];
      if (example !== undefined) return { member: at, message: `${at} must be ${example}`, keyword: e.keyword };
      return { member: at, message: `${at} ${e.message ?? 'is invalid'}`, keyword: e.keyword };
    }
    default:
      return { member: at, message: `${at} ${e.message ?? 'is invalid'}`, keyword: e.keyword };
  }
}

/** What a value of a JSON Schema format looks like, for messages. */
const FORMAT_EXAMPLES: Readonly<Record<string, string>> = {
  'date-time': 'an ISO 8601 date and time with its offset, such as 2026-12-01T09:30:00Z',
  date: 'an ISO 8601 date, such as 2026-12-01',
  email: 'an email address, such as ana@example.net',
  uri: 'an absolute URI, such as https://example.net/path',
};

/** The member of the object schema holding an `additionalProperties` error that `extra` misspells. */
function misspelled(root: JsonSchema, e: ErrorObject, extra: string): string | undefined {
  const properties = schemaHolding(root, e)?.properties;
  return properties !== null && typeof properties === 'object' ? closestName(extra, Object.keys(properties)) : undefined;
}

/**
 * How much one spelling check may compare (see {@link SpellingBudget}): about 10 ms of work. A body
 * or a document chooses the names compared and how many there are (a run body of 3,000 members
 * against a transformation of 3,000 incoming schemas compares 9 million pairs), so without a bound
 * one request could hold a service's event loop for minutes.
 */
export const MAX_SPELLING_CELLS = 2_000_000;

/**
 * What is left of the comparisons one check (of a body, of a document) may make, counted in
 * characters read and cells of the edit-distance table filled; {@link closestName} takes from it,
 * and gives no hint once it is spent.
 */
export interface SpellingBudget {
  cells: number;
}

/** A fresh {@link SpellingBudget} of `cells` ({@link MAX_SPELLING_CELLS} by default). */
export function spellingBudget(cells: number = MAX_SPELLING_CELLS): SpellingBudget {
  return { cells };
}

/** Takes `cells` from `budget`: false (and the budget spent) when it holds fewer. */
function spend(budget: SpellingBudget, cells: number): boolean {
  if (cells > budget.cells) {
    budget.cells = 0;
    return false;
  }
  budget.cells -= cells;
  return true;
}

/**
 * The name among `known` that `name` most likely misspells, for a "did you mean" hint: the same name
 * in other capitals, or one edit away (two for names of six characters or more), an edit adding,
 * dropping or changing one character or swapping two neighbours (`varibles` → `variables`, `groupz`
 * → `groups`, `requried` → `required`). Undefined when `name` is itself known or nothing is that
 * close; names shorter than three characters only match in other capitals. Of equally close names,
 * the first of `known`. The comparisons are taken from `budget` (one of its own by default): when
 * it is spent, the closest name found so far, if any, is answered without looking further.
 */
export function closestName(name: string, known: readonly string[], budget: SpellingBudget = spellingBudget()): string | undefined {
  if (!spend(budget, known.length)) return undefined;
  if (known.includes(name)) return undefined;
  const lower = name.toLowerCase();
  for (const k of known) {
    if (!spend(budget, k.length + 1)) return undefined;
    if (k.toLowerCase() === lower) return k;
  }
  if (name.length < 3) return undefined;
  const allowed = name.length >= 6 ? 2 : 1;
  let best: string | undefined;
  let bestDistance = allowed + 1;
  for (const k of known) {
    if (Math.abs(k.length - name.length) > allowed) continue;
    if (!spend(budget, (name.length + 1) * (k.length + 1))) break;
    const d = editDistance(lower, k.toLowerCase());
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

/** Edits (add, drop, change one character, swap two neighbours) from `a` to `b`: optimal string alignment. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row.push(d);
    }
    rows.push(row);
  }
  return (rows[a.length] as number[])[b.length] as number;
}

function isObjectValue(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** At most this many problems are answered by {@link misspelledMembers}: a body of 100,000 misspelled members is told of the first ones. */
export const MAX_MISSPELLED_MEMBERS = 20;

/**
 * The members of `value` that misspell one its object schema declares and `value` lacks
 * (`varibles` for `variables`, `Options` for `options`; see {@link closestName}) where the schema
 * leaves the object open, so that as written they would be ignored: one problem per member, named
 * `<label>.<member>` with the member meant. A member beside the one it resembles (`_id` and `id`)
 * passes. Declared members whose schemas are open objects with declared members of their own
 * (`body.options`) are looked into too. A closed object (`additionalProperties: false`) is not
 * looked at (validation refuses its extra members, with the same hint), nor one whose
 * `patternProperties` may take other names; any member that resembles none passes, as clients of the
 * original platform send members NAP does not read. `noun` says what a member of `value` is, for
 * the messages (`option of a start`: "body.options.varibles is no option of a start"). The first
 * {@link MAX_MISSPELLED_MEMBERS} problems are answered, and the comparisons of the whole check are
 * bounded by `budget` ({@link MAX_SPELLING_CELLS}): past it, members pass unchecked.
 */
export function misspelledMembers(
  schema: JsonSchema,
  value: unknown,
  label: string,
  noun = `member of ${label}`,
  budget: SpellingBudget = spellingBudget(),
  problems: ValidationProblem[] = [],
): ValidationProblem[] {
  const properties = schema.properties;
  if (!isObjectValue(value) || !isObjectValue(properties)) return problems;
  const open = schema.additionalProperties !== false && schema.patternProperties === undefined;
  // a member given beside the one it resembles is no misspelling of it: nothing is missing
  const absent = Object.keys(properties).filter((name) => !Object.hasOwn(value, name));
  for (const [member, inner] of Object.entries(value)) {
    if (problems.length >= MAX_MISSPELLED_MEMBERS || budget.cells === 0) break;
    const at = `${label}.${member}`;
    if (Object.hasOwn(properties, member)) {
      const memberSchema = properties[member];
      if (isObjectValue(memberSchema)) misspelledMembers(memberSchema, inner, at, undefined, budget, problems);
      continue;
    }
    const meant = open ? closestName(member, absent, budget) : undefined;
    if (meant === undefined) continue;
    problems.push({
      member: at,
      message: `${at} is no ${noun} (it would be ignored): did you mean '${meant}'?`,
      keyword: 'additionalProperties',
    });
  }
  return problems;
}

/** Throws 400 `VALIDATION_FAILED` with every problem of {@link misspelledMembers}, if there is one. */
export function assertNoMisspelledMembers(schema: JsonSchema, value: unknown, label: string, noun?: string): void {
  const problems = misspelledMembers(schema, value, label, noun);
  if (problems.length > 0) throw new AppError('VALIDATION_FAILED', problems.map((p) => p.message).join('; '), { details: problems });
}

/**
 * {@link assertNoMisspelledMembers} for the body of a request to `op` (`body.<member>`): for the
 * start and run routes whose bodies are open, where a member misspelled would run without it.
 */
export function assertNoMisspelledBody(op: OperationDef, body: unknown): void {
  if (op.request.body !== undefined) assertNoMisspelledMembers(op.request.body, body, 'body');
}

/**
 * For an `anyOf` whose branches only require members ("at least one of _id or name"), one problem
 * that names the alternatives; undefined when the branches failed for other reasons.
 */
function describeAnyOf(
  label: string,
  anyOf: ErrorObject,
  branchErrors: readonly ErrorObject[],
  data: unknown,
): ValidationProblem | undefined {
  const branches = new Map<string, string[]>();
  for (const e of branchErrors) {
    if (e.keyword !== 'required' || e.instancePath !== anyOf.instancePath) return undefined;
    const branch = e.schemaPath.slice(anyOf.schemaPath.length + 1).split('/')[0] ?? '';
    const missing = branches.get(branch) ?? [];
    missing.push(String((e.params as Record<string, unknown>).missingProperty));
    branches.set(branch, missing);
  }
  const at = memberPath(label, segmentsOf(anyOf.instancePath), data);
  const alternatives = [...branches.values()].map((names) =>
    names.length === 1 ? `property '${names[0] as string}'` : `properties ${names.map((n) => `'${n}'`).join(' and ')}`,
  );
  return { member: at, message: `${at} must have required ${alternatives.join(' or ')}`, keyword: 'anyOf' };
}

/**
 * For an `anyOf` of a schema and `null` (an optional value written as null), the problems of the
 * schema alone, each saying that null would do too; undefined for any other `anyOf`. Ajv reports
 * every branch (`must be one of …; must be null; must match a schema in anyOf`), which reads as
 * three refusals of one value.
 */
function describeNullable(
  label: string,
  anyOf: ErrorObject,
  branchErrors: readonly ErrorObject[],
  data: unknown,
): ValidationProblem[] | undefined {
  const isNull = (e: ErrorObject): boolean =>
    e.keyword === 'type' && e.instancePath === anyOf.instancePath && (e.params as Record<string, unknown>).type === 'null';
  const nullBranches = branchErrors.filter(isNull);
  const others = branchErrors.filter((e) => !isNull(e));
  if (nullBranches.length !== 1 || others.length === 0) return undefined;
  return others.map((e) => {
    const problem = describe(label, e, data);
    return e.instancePath === anyOf.instancePath ? { ...problem, message: `${problem.message}, or null` } : problem;
  });
}

/**
 * A body that lacks its wrapping member (`{ "role": { … } }`) but holds that member's own members
 * beside it (`{ "name": …, "allowedMethods": … }`): the `required` problem says to put them inside.
 */
function wrapperHint(
  label: string,
  required: ErrorObject,
  errors: readonly ErrorObject[],
  data: unknown,
  root: JsonSchema,
): ValidationProblem | undefined {
  const wrapper = String((required.params as Record<string, unknown>).missingProperty);
  const strays = errors
    .filter((e) => e.keyword === 'additionalProperties' && e.instancePath === required.instancePath)
    .map((e) => String((e.params as Record<string, unknown>).additionalProperty));
  if (strays.length === 0) return undefined;
  const properties = schemaHolding(root, required)?.properties as Record<string, unknown> | undefined;
  const inner = (properties?.[wrapper] as Record<string, unknown> | undefined)?.properties;
  if (inner === null || typeof inner !== 'object') return undefined;
  if (!strays.every((name) => Object.hasOwn(inner, name))) return undefined;
  const at = memberPath(label, segmentsOf(required.instancePath), data);
  const listed = strays.map((n) => `'${n}'`).join(', ');
  const shape = `{"${wrapper}": {${strays.map((n) => `"${n}": …`).join(', ')}}}`;
  return {
    member: `${at}.${wrapper}`,
    message: `${at} must have required property '${wrapper}': ${listed} go inside it (${shape})`,
    keyword: required.keyword,
  };
}

/**
 * The one optional member of a body that wraps free-form members (`{ "formData": { … } }`), when the
 * body lacks it: where a stray member was surely meant to go. Undefined for any other object.
 */
function loneWrapper(root: JsonSchema, e: ErrorObject, data: unknown): string | undefined {
  const holder = schemaHolding(root, e);
  const properties = holder?.properties;
  if (properties === null || typeof properties !== 'object') return undefined;
  const names = Object.keys(properties);
  const [only] = names;
  if (names.length !== 1 || only === undefined || (Array.isArray(holder?.required) && holder.required.includes(only))) return undefined;
  const wrapper = (properties as Record<string, Record<string, unknown>>)[only];
  // a free-form object (no members or value schema of its own) of the request's body itself
  if (e.instancePath !== '' || wrapper?.type !== 'object' || wrapper.properties !== undefined) return undefined;
  if (wrapper.additionalProperties !== undefined || wrapper.patternProperties !== undefined) return undefined;
  const here = valueAt(segmentsOf(e.instancePath), data);
  return here !== null && typeof here === 'object' && !Object.hasOwn(here, only) ? only : undefined;
}

/**
 * A query member that filters by field (`equals[status]=running`, a map of field to value) given as
 * plain text (`equals=running`): say how to name the field rather than that an object was expected.
 */
function fieldWiseHint(label: string, e: ErrorObject, data: unknown, root: JsonSchema): ValidationProblem | undefined {
  if (label !== 'query' || e.keyword !== 'type' || (e.params as Record<string, unknown>).type !== 'object') return undefined;
  const segments = segmentsOf(e.instancePath);
  const name = segments[segments.length - 1];
  if (segments.length !== 1 || name === undefined || typeof valueAt(segments, data) !== 'string') return undefined;
  const holder = schemaHolding(root, e);
  if (holder === undefined || holder.properties !== undefined || typeof holder.additionalProperties !== 'object') return undefined;
  const at = memberPath(label, segments, data);
  return { member: at, message: `${at} must name the field it filters: ${name}[<field>]=<value>`, keyword: e.keyword };
}

function toProblems(label: string, errors: readonly ErrorObject[], data: unknown, root: JsonSchema): ValidationProblem[] {
  const handled = new Set<ErrorObject>();
  const problems: ValidationProblem[] = [];
  for (const e of errors) {
    if (e.keyword !== 'anyOf') continue;
    const branchErrors = errors.filter((b) => b !== e && b.schemaPath.startsWith(`${e.schemaPath}/`));
    const nullable = describeNullable(label, e, branchErrors, data);
    const problem = nullable === undefined ? describeAnyOf(label, e, branchErrors, data) : undefined;
    if (nullable === undefined && problem === undefined) continue;
    problems.push(...(nullable ?? []), ...(problem === undefined ? [] : [problem]));
    handled.add(e);
    for (const b of branchErrors) handled.add(b);
  }
  for (const e of errors) {
    if (handled.has(e)) continue;
    const hint = e.keyword === 'required' ? wrapperHint(label, e, errors, data, root) : fieldWiseHint(label, e, data, root);
    problems.push(hint ?? describe(label, e, data, root));
  }
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.member}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Validates an event payload against its schema from `EVENTS` (events.ts); problems are prefixed `payload`. */
export function validateEvent(def: Pick<EventDef, 'schema'>, payload: unknown): ValidationProblem[] {
  return check(def.schema, 'body', payload, 'payload');
}

/** `member` lies at or under `prefix`: `body.mop`, `body.mop.name`, `body.mop[0]`; not `body.mopX`. */
function isAtOrUnder(member: string, prefix: string): boolean {
  return member === prefix || member.startsWith(`${prefix}.`) || member.startsWith(`${prefix}[`);
}

/**
 * `err` said of where its document was sent from: a refusal by the service a document was passed on
 * to names the member of that service's request (`body.mop.commands[0].rules[1]`), which the caller
 * never wrote; here every problem member at or under `from` moves under `to`
 * (`body.prebuilt.bundles[2].data.commands[0].rules[1]`), in `details` and in the message alike. Other
 * members, the code and the status are kept, and `err` is the cause.
 */
export function withMembersMoved(err: AppError, from: string, to: string): AppError {
  const escaped = from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const inText = (text: string): string => text.replace(new RegExp(`(?<![\\w.\\]])${escaped}(?![\\w$])`, 'g'), to);
  const moved = (member: string): string => (isAtOrUnder(member, from) ? `${to}${member.slice(from.length)}` : member);
  const details = Array.isArray(err.details)
    ? err.details.map((d: unknown) => {
        if (d === null || typeof d !== 'object') return d;
        const { member, message } = d as { member?: unknown; message?: unknown };
        return {
          ...(d as Record<string, unknown>),
          ...(typeof member === 'string' ? { member: moved(member) } : {}),
          ...(typeof message === 'string' ? { message: inText(message) } : {}),
        };
      })
    : err.details;
  return new AppError(err.code, inText(err.message), { status: err.status, cause: err, ...(details === undefined ? {} : { details }) });
}
