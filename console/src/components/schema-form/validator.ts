import { Validator } from '@cfworker/json-schema';
import type { OutputUnit, Schema } from '@cfworker/json-schema';
import { createErrorHandler, toErrorSchema, unwrapErrorHandler, validationDataMerge } from '@rjsf/utils';
import { isRecord } from '../../api/records';
import type {
  CustomValidator,
  ErrorTransformer,
  RJSFSchema,
  RJSFValidationError,
  UiSchema,
  ValidationData,
  ValidatorType,
} from '@rjsf/utils';

/**
 * The form renderer's validator on @cfworker/json-schema, which interprets schemas instead of
 * compiling them to code: the console's Content-Security-Policy forbids `eval`, which Ajv (RJSF's
 * usual validator) needs. Each message is a sentence naming the field by its label, in the form's
 * order ("VLAN must be at most 4094.", "Name in Contact is required."), with the keyword's own
 * value (the pattern, the bound) where the schema gives it.
 */

type FormData = Record<string, unknown>;

/** Keywords whose failure only says that something inside failed: the inner keyword's own error says what. */
const WRAPPERS = new Set([
  'properties',
  'items',
  'prefixItems',
  'allOf',
  '$ref',
  'dependentSchemas',
  'unevaluatedProperties',
  'additionalItems',
]);

const cache = new WeakMap<object, Validator>();

function validatorFor(schema: RJSFSchema, root?: RJSFSchema): Validator {
  const key = root && root !== schema ? { schema, root } : schema;
  const known = root && root !== schema ? undefined : cache.get(schema);
  if (known) return known;
  // a sub-schema checked on its own keeps the root's definitions for its $refs
  const withDefinitions: RJSFSchema = root && root !== schema ? { ...schema, definitions: root.definitions, $defs: root.$defs } : schema;
  const validator = new Validator(withDefinitions as Schema, '7', false);
  if (key === schema) cache.set(schema, validator);
  return validator;
}

/** `#/a/0/b` → `.a.0.b`: the property path RJSF hangs errors on. */
function propertyOf(instanceLocation: string): string {
  const pointer = instanceLocation.replace(/^#/, '');
  return pointer
    .split('/')
    .filter((part) => part !== '')
    .map((part) => `.${decodeURIComponent(part.replace(/~1/g, '/').replace(/~0/g, '~'))}`)
    .join('');
}

/** The schema (and UI schema) one step down `part` from `node`: a member of an object, or an item of a list. */
function step(node: unknown, ui: unknown, part: string): { node: unknown; ui: unknown; item: boolean } {
  const schema = isRecord(node) ? node : {};
  const uiSchema = isRecord(ui) ? ui : {};
  if (/^\d+$/.test(part) && schema.items !== undefined) {
    const items: unknown = schema.items;
    return { node: Array.isArray(items) ? items[Number(part)] : items, ui: uiSchema.items, item: true };
  }
  const properties = isRecord(schema.properties) ? schema.properties : {};
  // a member one of the kinds of a field of alternatives declares (its chosen kind's field draws it)
  const branches = [schema.oneOf, schema.anyOf, schema.allOf].flatMap((list) => (Array.isArray(list) ? (list as unknown[]) : []));
  const declaring = branches.find((branch) => isRecord(branch) && isRecord(branch.properties) && part in branch.properties);
  const member =
    part in properties ? properties[part] : isRecord(declaring) && isRecord(declaring.properties) ? declaring.properties[part] : undefined;
  return { node: member, ui: uiSchema[part], item: false };
}

/**
 * What the person sees the field at `.a.b` called: its label (the UI schema's title, the schema's,
 * else its name), then where it sits when nested — "Name in Contact", "item 2 of Devices".
 */
function labelAt(schema: RJSFSchema, uiSchema: UiSchema<FormData, RJSFSchema> | undefined, property: string): string {
  let node: unknown = schema;
  let ui: unknown = uiSchema;
  let label = '';
  for (const part of property.split('.').filter(Boolean)) {
    const next = step(node, ui, part);
    node = next.node;
    ui = next.ui;
    if (next.item) {
      label = `item ${Number(part) + 1} of ${label || 'the list'}`;
      continue;
    }
    const uiTitle: unknown = isRecord(ui) ? ui['ui:title'] : undefined;
    const title: unknown = isRecord(node) ? node.title : undefined;
    const own = typeof uiTitle === 'string' && uiTitle !== '' ? uiTitle : typeof title === 'string' && title !== '' ? title : part;
    label = label ? `${own} in ${label}` : own;
  }
  if (label === '') return 'The form';
  return label.startsWith('item ') ? `I${label.slice(1)}` : label;
}

/** Where the field at `.a.b` comes in the form: its members' order in the schema, then the items' — to list problems as the form reads. */
function placeOf(schema: RJSFSchema, property: string): number[] {
  let node: unknown = schema;
  const place: number[] = [];
  for (const part of property.split('.').filter(Boolean)) {
    const properties = isRecord(node) && isRecord(node.properties) ? Object.keys(node.properties) : [];
    // a member of a chosen kind only: after the field's own members
    if (!/^\d+$/.test(part) && !properties.includes(part)) properties.push(part);
    place.push(/^\d+$/.test(part) && isRecord(node) && node.items !== undefined ? Number(part) : properties.indexOf(part));
    node = step(node, undefined, part).node;
  }
  return place;
}

function byPlace(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}

/** The value of the keyword at `#/properties/a/pattern` in `schema` (undefined where a `$ref` or the like stands between). */
function keywordValue(schema: RJSFSchema, keywordLocation: string): unknown {
  let node: unknown = schema;
  for (const part of keywordLocation
    .replace(/^#\/?/, '')
    .split('/')
    .filter((p) => p !== '')) {
    const key = decodeURIComponent(part.replace(/~1/g, '/').replace(/~0/g, '~'));
    node = Array.isArray(node) ? node[Number(key)] : isRecord(node) ? node[key] : undefined;
  }
  return node;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'yes or no',
  array: 'a list',
  object: 'an object',
  null: 'empty',
};

/** JSON Schema's formats as a person names what they write ("not a valid IPv4 address", not "ipv4"). */
const FORMAT_WORDS: Record<string, string> = {
  ipv4: 'IPv4 address',
  ipv6: 'IPv6 address',
  email: 'e-mail address',
  hostname: 'host name',
  uri: 'URI',
  'uri-reference': 'URI',
  'date-time': 'date and time',
  date: 'date (YYYY-MM-DD)',
  time: 'time (HH:MM:SS)',
  uuid: 'UUID',
  regex: 'regular expression',
};

const plural = (count: unknown, word: string) => `${String(count)} ${word}${count === 1 ? '' : 's'}`;

function oneOf(values: readonly unknown[]): string {
  const shown = values.slice(0, 6).map((value) => JSON.stringify(value));
  return `${shown.join(', ')}${values.length > shown.length ? ', …' : ''}`;
}

/** True for a list of choices the person ticks (`uniqueItems` of an `enum`): its items are choices, drawn as checkboxes. */
export function isChoiceList(node: unknown): boolean {
  return isRecord(node) && node.type === 'array' && node.uniqueItems === true && isRecord(node.items) && Array.isArray(node.items.enum);
}

/**
 * What is wrong, said of the field (after its label): "is required", "needs at least one item"…;
 * `value` is the keyword's value, `holder` the schema that holds the keyword.
 */
function predicateOf(unit: OutputUnit, value: unknown, holder?: unknown): string {
  const things = isChoiceList(holder) ? 'choice' : 'item';
  switch (unit.keyword) {
    case 'required':
      return 'is required';
    case 'type': {
      // an item added to a list and left empty: RJSF holds it as null (or undefined)
      if (/^Instance type "(null|undefined)"/.test(unit.error)) return 'is required';
      const types = (Array.isArray(value) ? value : [value]).map((type) => TYPE_WORDS[String(type)] ?? String(type));
      return `must be ${types.join(' or ')}`;
    }
    case 'const':
      if (value === true) return 'must be ticked';
      if (value === false) return 'must be left unticked';
      return `must be ${JSON.stringify(value)}`;
    case 'enum':
      return Array.isArray(value) ? `must be one of ${oneOf(value)}` : 'must be one of its choices';
    case 'minItems':
      // one in words, as the form's other sentences say it ("needs at least one choice", "… one item")
      return value === 1 ? `needs at least one ${things}` : `needs at least ${plural(value, things)}`;
    case 'maxItems':
      return `takes at most ${plural(value, things)}`;
    case 'uniqueItems':
      return 'has the same item twice';
    case 'minLength':
      return value === 1 ? 'cannot be empty' : `needs at least ${plural(value, 'character')}`;
    case 'maxLength':
      return `takes at most ${plural(value, 'character')}`;
    case 'pattern':
      return typeof value === 'string' ? `does not match pattern "${value}"` : 'does not match its pattern';
    case 'format':
      return `is not a valid ${FORMAT_WORDS[String(value)] ?? String(value)}`;
    case 'minimum':
      return `must be at least ${String(value)}`;
    case 'maximum':
      return `must be at most ${String(value)}`;
    case 'exclusiveMinimum':
      return `must be more than ${String(value)}`;
    case 'exclusiveMaximum':
      return `must be less than ${String(value)}`;
    case 'multipleOf':
      return `must be a multiple of ${String(value)}`;
    case 'additionalProperties': {
      const key = /^Property "([^"]+)"/.exec(unit.error)?.[1];
      return key === undefined ? 'has a member it does not take' : `does not take a member "${key}"`;
    }
    case 'anyOf':
      return 'fits none of its kinds';
    case 'oneOf':
      return 'must fit exactly one of its kinds';
    case 'minProperties':
      return `needs at least ${plural(value, 'member')}`;
    case 'maxProperties':
      return `takes at most ${plural(value, 'member')}`;
    default: {
      // the validator's own words, for the keywords above none of these
      const words = unit.error.replace(/^Instance /, 'the value ').replace(/\.$/, '');
      return `is refused: ${words.charAt(0).toLowerCase()}${words.slice(1)}`;
    }
  }
}

/** The innermost kind of a field of alternatives the keyword at `keywordLocation` sits in: `#/properties/d/oneOf/1/pattern` → `#/properties/d/oneOf`, 1. */
function kindOf(keywordLocation: string): { at: string; index: number } | undefined {
  const found = [...keywordLocation.matchAll(/\/(?:anyOf|oneOf)\/(\d+)(?=\/|$)/g)].pop();
  if (found?.index === undefined) return undefined;
  return { at: `${keywordLocation.slice(0, found.index)}${found[0].replace(/\/\d+$/, '')}`, index: Number(found[1]) };
}

/** True when a kind's finding rules the kind out for the value: of another type, or another value of a member that tells the kinds apart. */
function rulesOut(unit: OutputUnit, at: string): boolean {
  if (unit.keyword === 'type') return unit.instanceLocation === at;
  return (unit.keyword === 'const' || unit.keyword === 'enum') && unit.instanceLocation !== at;
}

/** How the person knows a kind: its title, as the chooser shows it, else its constant, else its place. */
function kindName(kind: unknown, index: number): string {
  if (isRecord(kind) && typeof kind.title === 'string' && kind.title !== '') return kind.title;
  if (isRecord(kind) && 'const' in kind) return JSON.stringify(kind.const);
  return `option ${index + 1}`;
}

/** A finding as a subject and a predicate: the field it names (a missing member for `required`), and what is wrong with it. */
function findingOf(unit: OutputUnit, schema: RJSFSchema): { property: string; predicate: string } {
  let property = propertyOf(unit.instanceLocation);
  if (unit.keyword === 'required') {
    const missing = /"([^"]+)"/.exec(unit.error)?.[1];
    if (missing !== undefined) property = `${property}.${missing}`;
  }
  const holder = keywordValue(schema, unit.keywordLocation.replace(/\/[^/]*$/, ''));
  return { property, predicate: predicateOf(unit, keywordValue(schema, unit.keywordLocation), holder) };
}

/**
 * What the findings of fields of alternatives (`oneOf`, `anyOf`) come to. A field with one kind the
 * value can be (the others of another type, or told apart by a member's constant) has that kind's
 * findings as its own ("Destination does not match pattern …", "Name in Target is required."), the
 * field's generic one dropped; otherwise the field's finding says which kinds it fits, or what each
 * kind refuses. Returns the findings to leave out and the predicates of those said otherwise.
 */
function alternativesOf(units: readonly OutputUnit[], schema: RJSFSchema, uiSchema?: UiSchema<FormData, RJSFSchema>) {
  const adopted = new Set<string>();
  const hidden = new Set<OutputUnit>();
  const said = new Map<OutputUnit, string>();
  for (const unit of units) {
    const kind = kindOf(unit.keywordLocation);
    if (kind !== undefined && !adopted.has(`${kind.at}/${kind.index}`)) {
      hidden.add(unit);
      continue;
    }
    if (unit.keyword !== 'oneOf' && unit.keyword !== 'anyOf') continue;
    const kinds: unknown = keywordValue(schema, unit.keywordLocation);
    if (!Array.isArray(kinds)) continue;
    const findings = kinds.map((_, index) =>
      units.filter((other) => {
        const of = kindOf(other.keywordLocation);
        return of?.at === unit.keywordLocation && of.index === index && !WRAPPERS.has(other.keyword);
      }),
    );
    const matches = Number(/\((\d+) matches\)/.exec(unit.error)?.[1] ?? 0);
    if (matches >= 2) {
      const fitting = findings.flatMap((found, index) => (found.length === 0 ? [kindName(kinds[index], index)] : []));
      said.set(unit, `fits ${String(matches)} of its kinds (${fitting.join(' and ')}) and must fit only one`);
      continue;
    }
    // a choice of constants (a select): its choices by the names the select shows
    if (kinds.every((kind) => isRecord(kind) && 'const' in kind)) {
      said.set(unit, `must be one of its choices: ${kinds.map(kindName).join(', ')}`);
      continue;
    }
    const possible = findings.flatMap((found, index) => (found.some((one) => rulesOut(one, unit.instanceLocation)) ? [] : [index]));
    if (possible.length === 1) {
      adopted.add(`${unit.keywordLocation}/${String(possible[0])}`);
      hidden.add(unit);
      continue;
    }
    const reasons = (possible.length > 0 ? possible : kinds.map((_, index) => index)).map((index) => {
      const first = findings[index]?.[0];
      const name = kindName(kinds[index], index);
      if (first === undefined) return `as ${name}, it is refused`;
      const { property, predicate } = findingOf(first, schema);
      const subject = property === propertyOf(unit.instanceLocation) ? 'it' : labelAt(schema, uiSchema, property);
      return `as ${name}, ${subject} ${predicate}`;
    });
    said.set(unit, `fits none of its kinds: ${reasons.join('; ')}`);
  }
  return { hidden, said };
}

/**
 * The validator's findings as RJSF's errors, in the order of the form: each message a sentence that
 * names the field ("Name in Contact is required."), as it is shown under the field and read out with
 * it. Left out: the findings another one already says (the `false` schema of a member an object does
 * not take, which its `additionalProperties` names), and those of the kinds of a field of alternatives
 * (see {@link alternativesOf}).
 */
function toRjsfErrors(units: readonly OutputUnit[], schema: RJSFSchema, uiSchema?: UiSchema<FormData, RJSFSchema>): RJSFValidationError[] {
  const found: { error: RJSFValidationError; place: number[] }[] = [];
  const seen = new Set<string>();
  // the members the objects' `additionalProperties` refuse, by their places: `#/site/extra`
  const refusedMembers = new Set(
    units
      .filter((unit) => unit.keyword === 'additionalProperties')
      .map(
        (unit) =>
          `${unit.instanceLocation}/${(/^Property "([^"]+)"/.exec(unit.error)?.[1] ?? '').replace(/~/g, '~0').replace(/\//g, '~1')}`,
      ),
  );
  const alternatives = alternativesOf(units, schema, uiSchema);
  for (const unit of units) {
    if (WRAPPERS.has(unit.keyword) || alternatives.hidden.has(unit)) continue;
    if (unit.keyword === 'false' && refusedMembers.has(unit.instanceLocation)) continue;
    const finding = findingOf(unit, schema);
    const { property } = finding;
    const title = labelAt(schema, uiSchema, property);
    const message = `${title} ${alternatives.said.get(unit) ?? finding.predicate}.`;
    // a keyword met twice on one path (a `$ref` and its target) says the same once
    if (seen.has(`${property} ${message}`)) continue;
    seen.add(`${property} ${message}`);
    found.push({
      error: { name: unit.keyword, property, message, title, schemaPath: unit.keywordLocation, stack: message },
      place: placeOf(schema, property),
    });
  }
  return found.sort((a, b) => byPlace(a.place, b.place)).map(({ error }) => error);
}

export const formValidator: ValidatorType<FormData, RJSFSchema> = {
  validateFormData(
    formData: FormData | undefined,
    schema: RJSFSchema,
    customValidate?: CustomValidator<FormData, RJSFSchema>,
    transformErrors?: ErrorTransformer<FormData, RJSFSchema>,
    uiSchema?: UiSchema<FormData, RJSFSchema>,
  ): ValidationData<FormData> {
    let errors = toRjsfErrors(validatorFor(schema).validate(formData ?? {}).errors, schema, uiSchema);
    if (transformErrors) errors = transformErrors(errors, uiSchema);
    const errorSchema = toErrorSchema<FormData>(errors);
    if (!customValidate) return { errors, errorSchema };
    const handler = customValidate(formData ?? {}, createErrorHandler<FormData>(formData ?? {}), uiSchema, errorSchema);
    return validationDataMerge<FormData>({ errors, errorSchema }, unwrapErrorHandler<FormData>(handler));
  },
  isValid(schema: RJSFSchema, formData: FormData | undefined, rootSchema: RJSFSchema): boolean {
    try {
      return validatorFor(schema, rootSchema).validate(formData ?? {}).valid;
    } catch {
      return false;
    }
  },
  rawValidation<Result = OutputUnit>(schema: RJSFSchema, formData?: FormData): { errors?: Result[]; validationError?: Error } {
    try {
      const result = validatorFor(schema).validate(formData ?? {});
      return { errors: result.errors as Result[] };
    } catch (err) {
      return { validationError: err instanceof Error ? err : new Error(String(err)) };
    }
  },
};
