import { closestName } from '@nap/contracts';
import type { TransformationProblem } from '@nap/contracts';
import type { Obj } from './values';
import { isPlainObject } from './values';

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

/** Every member of `schema` and of the schemas nested in it that no schema knows, with its JSON Pointer. */
function unknownMembers(schema: Obj, at: string, found: { member: string; path: string }[]): void {
  for (const key of Object.keys(schema)) {
    if (!KNOWN_MEMBERS.includes(key) && !key.startsWith('x-')) found.push({ member: key, path: `${at}/${pointerPart(key)}` });
  }
  for (const key of ONE_SCHEMA) {
    const value = schema[key];
    if (isPlainObject(value)) unknownMembers(value, `${at}/${key}`, found);
  }
  for (const key of SCHEMA_LISTS) {
    const value = schema[key];
    if (Array.isArray(value))
      value.forEach((item, i) => {
        if (isPlainObject(item)) unknownMembers(item, `${at}/${key}/${i}`, found);
      });
  }
  for (const key of SCHEMAS_BY_NAME) {
    const value = schema[key];
    if (!isPlainObject(value)) continue;
    // `dependencies` of draft 7 also maps a name to a list of names, which is not a schema
    for (const [name, sub] of Object.entries(value))
      if (isPlainObject(sub)) unknownMembers(sub, `${at}/${key}/${pointerPart(name)}`, found);
  }
}

/**
 * The members of a document's incoming schemas (its own and its functions') that no JSON Schema
 * keyword nor the original editor names. JSON Schema ignores a member it does not know, so a
 * misspelled keyword (`proprties`, `requried`, `Type`) checks nothing and the author never learns:
 * one that misspells a known member is an error `UNKNOWN_SCHEMA_MEMBER` saying which was meant;
 * any other (an annotation of the author's own) is a warning, and the document keeps it. `x-`
 * members are extensions by convention and pass. Paths are JSON Pointers into the document
 * (`/incoming/0/properties/host/requried`, `/functions/2/incoming/1/tpye`).
 */
export function checkIncomingMembers(doc: Obj): { errors: TransformationProblem[]; warnings: TransformationProblem[] } {
  const errors: TransformationProblem[] = [];
  const warnings: TransformationProblem[] = [];
  const scopes: { incoming: unknown; at: string; owner: string }[] = [{ incoming: doc.incoming, at: '', owner: '' }];
  if (Array.isArray(doc.functions))
    doc.functions.forEach((fn, i) => {
      if (isPlainObject(fn))
        scopes.push({ incoming: fn.incoming, at: `/functions/${i}`, owner: ` of function "${String(fn.name ?? fn.id ?? i)}"` });
    });
  for (const scope of scopes) {
    if (!Array.isArray(scope.incoming)) continue;
    scope.incoming.forEach((schema, i) => {
      if (!isPlainObject(schema)) return;
      const found: { member: string; path: string }[] = [];
      unknownMembers(schema, `${scope.at}/incoming/${i}`, found);
      const named = typeof schema.$id === 'string' ? `"${schema.$id}"` : String(i);
      for (const { member, path } of found) {
        const meant = closestName(member, KNOWN_MEMBERS);
        if (meant !== undefined)
          errors.push({
            code: 'UNKNOWN_SCHEMA_MEMBER',
            message: `the incoming schema ${named}${scope.owner} has the member "${member}", which no schema knows: did you mean "${meant}"?`,
            path,
          });
        else
          warnings.push({
            code: 'UNKNOWN_SCHEMA_MEMBER',
            message: `the incoming schema ${named}${scope.owner} has the member "${member}", which no schema knows: it is kept, and checks nothing`,
            path,
          });
      }
    });
  }
  return { errors, warnings };
}
