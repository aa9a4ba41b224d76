import { setFlagsFromString } from 'node:v8';
import { closestName, spellingBudget } from '@nap/contracts';
import type { SpellingBudget } from '@nap/contracts';
import type { TransformationProblem } from '@nap/contracts';
import type { Obj } from './values';
import { isPlainObject, parsePointer } from './values';

/**
 * The members an incoming schema of a transformation may carry: the JSON Schema keywords of every
 * draft (validation, applicators, annotations), `example` and `nullable` as OpenAPI writes them,
 * and the members the original platform's editor writes into the schemas of user functions
 * (`optional`, `isConstValue`; `isContext`, `isIndexed`, `isThis` in the 2023.1 form).
 */
const KNOWN_MEMBERS: readonly string[] = [
  // core
  '$schema $id id $ref $anchor $dynamicRef $dynamicAnchor $recursiveRef $recursiveAnchor $vocabulary $comment $defs definitions',
  // validation
  'type enum const multipleOf maximum exclusiveMaximum minimum exclusiveMinimum maxLength minLength pattern format',
  'items additionalItems prefixItems maxItems minItems uniqueItems contains maxContains minContains',
  'properties patternProperties additionalProperties propertyNames required maxProperties minProperties',
  'dependencies dependentRequired dependentSchemas unevaluatedItems unevaluatedProperties allOf anyOf oneOf not if then else',
  'contentEncoding contentMediaType contentSchema',
  // annotations, and OpenAPI's
  'title description default examples deprecated readOnly writeOnly example nullable',
  // the original editor's
  'optional isConstValue isContext isIndexed isThis',
].flatMap((line) => line.split(' '));

/** The members an outgoing schema may carry: those of an incoming one, and `editable`, which the original editor writes into the outgoing schemas of user functions. */
const KNOWN_OUTGOING_MEMBERS: readonly string[] = [...KNOWN_MEMBERS, 'editable'];

/** Keywords whose value is one schema, a list of schemas, or schemas by name: where schemas nest. */
const ONE_SCHEMA = [
  'items',
  'additionalItems',
  'additionalProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
] as const;
const SCHEMA_LISTS = ['items', 'prefixItems', 'allOf', 'anyOf', 'oneOf'] as const;
const SCHEMAS_BY_NAME = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'] as const;

function pointerPart(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Every member of `schema` and of the schemas nested in it that is not `known`, with its JSON Pointer. */
function unknownMembers(schema: Obj, at: string, known: readonly string[], found: { member: string; path: string }[]): void {
  for (const key of Object.keys(schema)) {
    if (!known.includes(key) && !key.startsWith('x-')) found.push({ member: key, path: `${at}/${pointerPart(key)}` });
  }
  for (const key of ONE_SCHEMA) {
    const value = schema[key];
    if (isPlainObject(value)) unknownMembers(value, `${at}/${key}`, known, found);
  }
  for (const key of SCHEMA_LISTS) {
    const value = schema[key];
    if (Array.isArray(value))
      value.forEach((item, i) => {
        if (isPlainObject(item)) unknownMembers(item, `${at}/${key}/${i}`, known, found);
      });
  }
  for (const key of SCHEMAS_BY_NAME) {
    const value = schema[key];
    if (!isPlainObject(value)) continue;
    // `dependencies` of draft 7 also maps a name to a list of names, which is not a schema
    for (const [name, sub] of Object.entries(value))
      if (isPlainObject(sub)) unknownMembers(sub, `${at}/${key}/${pointerPart(name)}`, known, found);
  }
}

/** Keywords by which a schema takes members from other schemas: a member it does not list may be declared there. */
const COMPOSING = ['$ref', '$dynamicRef', '$recursiveRef', 'allOf', 'anyOf', 'oneOf', 'if', 'dependentSchemas', 'dependencies'] as const;

/** The problems of a document's schemas, as {@link checkSchemaMembers} answers them. */
interface Found {
  errors: TransformationProblem[];
  warnings: TransformationProblem[];
  /** What is left of the spelling comparisons of the whole document: its names and their number are the author's. */
  budget: SpellingBudget;
}

/** A document, or one of its user functions: where schemas and the assigns that write them live. */
interface Scope {
  scope: Obj;
  at: string;
  owner: string;
}

function scopesOf(doc: Obj): Scope[] {
  const scopes: Scope[] = [{ scope: doc, at: '', owner: '' }];
  if (Array.isArray(doc.functions))
    doc.functions.forEach((fn, i) => {
      if (isPlainObject(fn)) scopes.push({ scope: fn, at: `/functions/${i}`, owner: ` of function "${String(fn.name ?? fn.id ?? i)}"` });
    });
  return scopes;
}

/** How a schema is named in messages: its `$id`, quoted, else its place in the list. */
function schemaName(schema: Obj, i: number): string {
  return typeof schema.$id === 'string' ? `"${schema.$id}"` : String(i);
}

/** The members of the `incoming` or `outgoing` schemas of a scope that no schema knows (see {@link checkSchemaMembers}). */
function checkKeywords(where: Scope, side: 'incoming' | 'outgoing', known: readonly string[], found: Found): void {
  const list = where.scope[side];
  if (!Array.isArray(list)) return;
  list.forEach((schema, i) => {
    if (!isPlainObject(schema)) return;
    const members: { member: string; path: string }[] = [];
    unknownMembers(schema, `${where.at}/${side}/${i}`, known, members);
    for (const { member, path } of members) {
      const meant = closestName(member, known, found.budget);
      const what = `the ${side} schema ${schemaName(schema, i)}${where.owner} has the member "${member}", which no schema knows`;
      if (meant !== undefined) found.errors.push({ code: 'UNKNOWN_SCHEMA_MEMBER', message: `${what}: did you mean "${meant}"?`, path });
      else found.warnings.push({ code: 'UNKNOWN_SCHEMA_MEMBER', message: `${what}: it is kept, and checks nothing`, path });
    }
  });
}

/** V8's flag for its linear-time regular expression engine (a name of its own: linters know no such flag). */
const LINEAR = 'l';

let linearEngine: boolean | undefined;

/** Whether V8's linear-time engine is on: turned on at the first use (it changes nothing else). */
function hasLinearEngine(): boolean {
  if (linearEngine !== undefined) return linearEngine;
  setFlagsFromString('--enable-experimental-regexp-engine');
  try {
    new RegExp('', LINEAR);
    linearEngine = true;
  } catch {
    linearEngine = false;
  }
  return linearEngine;
}

/** What a Unicode pattern (`u`) reads otherwise than a plain one: property classes, code point escapes; and names beyond the BMP. */
const UNICODE_ONLY = /\\[pP]\{|\\u\{/;
const ASTRAL = /[\uD800-\uDFFF]/;

/**
 * True when a `patternProperties` pattern of `schema` takes `member` (or cannot be told: then
 * nothing is said of it). Both are the author's and this runs in the service's event loop, so a
 * pattern runs on V8's linear-time engine only: `^(a+)+$` against thirty `a`s and a `!` would hold
 * every request of the process for minutes. That engine runs no Unicode pattern, so the pattern is
 * read as one (it must be valid so) and run as a plain one, which means the same for names within
 * the BMP; a pattern the engine cannot run (a backreference, a lookaround, a counted repeat), one
 * with `\p{…}` or `\u{…}`, and a name beyond the BMP count as taken, as do all once the
 * document's `budget` is spent.
 */
function matchesPattern(schema: Obj, member: string, budget: SpellingBudget): boolean {
  if (!isPlainObject(schema.patternProperties)) return false;
  if (!hasLinearEngine() || ASTRAL.test(member)) return true;
  return Object.keys(schema.patternProperties).some((pattern) => {
    // compiling and running cost the pattern and the name; past the document's budget nothing is said
    if (budget.cells < pattern.length + member.length) return true;
    budget.cells -= pattern.length + member.length;
    if (UNICODE_ONLY.test(pattern)) return true;
    try {
      new RegExp(pattern, 'u');
      return new RegExp(pattern, LINEAR).test(member);
    } catch {
      return true;
    }
  });
}

/**
 * The member that an assign writing `tokens` into the outgoing value of `schema` writes where the
 * schema declares no such member: the first such token with the object schema holding it. Undefined
 * when every token is declared, or where the schema cannot tell (a member that is not itself a
 * schema, a schema composed from others, a pattern that takes the name).
 */
function undeclaredMember(
  schema: Obj,
  tokens: readonly string[],
  budget: SpellingBudget,
): { member: string; holder: Obj; depth: number } | undefined {
  let holder = schema;
  for (const [depth, token] of tokens.entries()) {
    if (COMPOSING.some((k) => Object.hasOwn(holder, k))) return undefined;
    const properties = isPlainObject(holder.properties) ? holder.properties : undefined;
    let next: unknown;
    if (properties !== undefined && Object.hasOwn(properties, token)) next = properties[token];
    else if (/^(0|[1-9]\d*|-)$/.test(token) && (isPlainObject(holder.items) || holder.properties === undefined)) next = holder.items;
    else if (matchesPattern(holder, token, budget)) return undefined;
    else return { member: token, holder, depth };
    if (!isPlainObject(next)) return undefined;
    holder = next;
  }
  return undefined;
}

/** How many declared members a message names: a schema of thousands, named in each of thousands of assigns, would make an answer of hundreds of megabytes. */
const MAX_NAMED_MEMBERS = 10;

/** `names` quoted and joined, the first {@link MAX_NAMED_MEMBERS} of them and how many more. */
function namedList(names: readonly string[]): string {
  const named = names
    .slice(0, MAX_NAMED_MEMBERS)
    .map((d) => `"${d}"`)
    .join(', ');
  return names.length > MAX_NAMED_MEMBERS ? `${named} and ${names.length - MAX_NAMED_MEMBERS} more` : named;
}

/**
 * The assigns of a scope that write a member its outgoing schema does not declare: into an object
 * schema closed to other members (`additionalProperties` or `unevaluatedProperties` false), an
 * error, as the value would not match its own schema; a near miss of a declared member into an
 * open one, a warning saying which was meant (another member may be wanted there).
 */
function checkWrites(where: Scope, found: Found): void {
  const { scope } = where;
  if (!Array.isArray(scope.outgoing) || !Array.isArray(scope.steps)) return;
  const schemas = new Map<string, { schema: Obj; i: number }>();
  // the declared names of a schema, listed once however many assigns write into it
  const names = new Map<Obj, string[]>();
  scope.outgoing.forEach((schema, i) => {
    if (isPlainObject(schema) && typeof schema.$id === 'string' && !schemas.has(schema.$id)) schemas.set(schema.$id, { schema, i });
  });
  scope.steps.forEach((step, s) => {
    if (!isPlainObject(step) || step.type !== 'assign' || !isPlainObject(step.to) || step.to.location !== 'outgoing') return;
    const target = schemas.get(String(step.to.name));
    const tokens = typeof step.to.ptr === 'string' ? parsePointer(step.to.ptr) : undefined;
    // a name or pointer that is wrong is the compiler's error (BAD_ASSIGN, BAD_POINTER)
    if (target === undefined || tokens === undefined) return;
    const undeclared = undeclaredMember(target.schema, tokens, found.budget);
    if (undeclared === undefined) return;
    const { member, holder, depth } = undeclared;
    let declared = names.get(holder);
    if (declared === undefined) names.set(holder, (declared = isPlainObject(holder.properties) ? Object.keys(holder.properties) : []));
    const closed = holder.additionalProperties === false || holder.unevaluatedProperties === false;
    const meant = closestName(member, declared, found.budget);
    if (!closed && meant === undefined) return;
    const inside = depth === 0 ? '' : ` at /${tokens.slice(0, depth).map(pointerPart).join('/')}`;
    const what = `assign ${String(step.id)} writes the member "${member}" into the outgoing schema ${schemaName(target.schema, target.i)}${where.owner}${inside}, which does not declare it`;
    const hint =
      meant !== undefined
        ? `did you mean "${meant}"?`
        : declared.length > 0
          ? `it allows no other member than ${namedList(declared)}`
          : 'it allows no member';
    (closed ? found.errors : found.warnings).push({
      code: 'UNDECLARED_OUTGOING_MEMBER',
      message: `${what}: ${hint}`,
      path: `${where.at}/steps/${s}/to/ptr`,
    });
  });
}

/**
 * The members of a document's schemas (its own and its functions', incoming and outgoing) that no
 * JSON Schema keyword nor the original editor names, and the members its assigns write that an
 * outgoing schema does not declare. JSON Schema ignores a member it does not know, so a misspelled
 * keyword (`proprties`, `requried`, `Type`) checks nothing and the author never learns: one that
 * misspells a known member is an error `UNKNOWN_SCHEMA_MEMBER` saying which was meant; any other
 * (an annotation of the author's own) is a warning, and the document keeps it. `x-` members are
 * extensions by convention and pass. An assign that writes into an outgoing value a member its
 * schema does not declare is `UNDECLARED_OUTGOING_MEMBER`: an error where the schema allows no
 * other member, a warning where it is a near miss of a declared one (see {@link checkWrites}).
 * Paths are JSON Pointers into the document (`/incoming/0/properties/host/requried`,
 * `/functions/2/outgoing/1/tpye`, `/steps/4/to/ptr`).
 */
export function checkSchemaMembers(doc: Obj): Found {
  const found: Found = { errors: [], warnings: [], budget: spellingBudget() };
  for (const where of scopesOf(doc)) {
    checkKeywords(where, 'incoming', KNOWN_MEMBERS, found);
    checkKeywords(where, 'outgoing', KNOWN_OUTGOING_MEMBERS, found);
    checkWrites(where, found);
  }
  return found;
}
