/**
 * A workflow's `inputSchema` read for the Run dialog: its members as a table, a JSON skeleton of
 * the variables, and, when a form can ask for every member (a plain value, a list of them, an
 * object of such members), a form. Imported schemas are messy
 * (members of every type at once, `examples`, editor titles, long `required` lists): the platform
 * checks the variables against the schema when the job starts, so nothing here refuses a schema.
 */
import { isRecord } from '../../api/records';

type FormData = Record<string, unknown>;
/**
 * A JSON Schema, and a UI schema, as objects: the shapes RJSF reads (`RJSFSchema`, `UiSchema`),
 * written without its types so that this module stays free of the renderer.
 */
export type JsonObject = Record<string, unknown>;

/** One member of the inputSchema, as the dialog lists it. */
export interface WorkflowInput {
  name: string;
  /** The JSON types the member accepts, as the schema writes them; empty when it names none (any value). */
  types: string[];
  required: boolean;
  /** True when the member has `examples`: then `example` is the first of them. */
  hasExample: boolean;
  example: unknown;
  /** The schema's `title`, when it gives one other than the name. */
  title: string | undefined;
  description: string | undefined;
  /** `_id` and `initiator`: the platform gives every job these itself, over what is sent. */
  givenByPlatform: boolean;
  /** The member's own schema (`{}` for a required member the schema does not describe). */
  schema: Record<string, unknown>;
}

/** The variables the platform sets on every job (the job's id, who started it): a schema that requires them is satisfied without them. */
export const PLATFORM_VARIABLES: readonly string[] = ['_id', 'initiator'];

/** The types a form field holds as one value. */
const PLAIN_TYPES = new Set(['string', 'integer', 'number', 'boolean']);
/** Keywords a form of fields cannot honour: a schema with one of them is written as JSON. */
const COMPOSED = [
  '$ref',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'patternProperties',
  'propertyNames',
  'dependencies',
  'dependentSchemas',
  'unevaluatedProperties',
  'prefixItems',
  'contains',
  'unevaluatedItems',
];
/**
 * How deep a form goes: the inputSchema's members (1) and their own members (2, `contact.name`), no
 * deeper. A member with more levels is written as JSON: groups in groups in a dialog read badly.
 */
const FORM_DEPTH = 2;
/** The keywords the form writes its own way (label, help, placeholder). */
const FORM_OWN = new Set(['examples', 'title', 'description']);
/** Every JSON type (integer is a number): a member that accepts them all accepts anything. */
const EVERY_TYPE = ['array', 'boolean', 'null', 'number', 'object', 'string'];

function typesOf(schema: Record<string, unknown>): string[] {
  const type = schema.type;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  return [];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** The members of an inputSchema in the order it writes them, then the required ones it does not describe. */
export function inputsOf(inputSchema: unknown): WorkflowInput[] {
  if (!isRecord(inputSchema)) return [];
  const properties = isRecord(inputSchema.properties) ? inputSchema.properties : {};
  const required = new Set(Array.isArray(inputSchema.required) ? inputSchema.required.map(String) : []);
  const names = [...Object.keys(properties), ...[...required].filter((name) => !(name in properties))];
  return names.map((name) => {
    const schema = isRecord(properties[name]) ? properties[name] : {};
    const examples = Array.isArray(schema.examples) ? schema.examples : [];
    const title = text(schema.title);
    return {
      name,
      types: typesOf(schema),
      required: required.has(name),
      hasExample: examples.length > 0,
      example: examples[0],
      title: title !== undefined && title.toLowerCase() !== name.toLowerCase() ? title : undefined,
      description: text(schema.description),
      givenByPlatform: PLATFORM_VARIABLES.includes(name),
      schema,
    };
  });
}

/** The member's types in a few words: `string`, `string or number`, `any` (every type), `any but null`. */
export function typeText(input: WorkflowInput): string {
  const types = new Set(input.types.map((t) => (t === 'integer' && input.types.includes('number') ? 'number' : t)));
  if (types.size === 0 || EVERY_TYPE.every((t) => types.has(t))) return 'any';
  if (EVERY_TYPE.every((t) => t === 'null' || types.has(t))) return 'any but null';
  const enumerated = Array.isArray(input.schema.enum) ? ` (one of ${input.schema.enum.map((v) => JSON.stringify(v)).join(', ')})` : '';
  return `${[...types].join(' or ')}${enumerated}`;
}

/** A value as one line of text: a string as itself, anything else as JSON. */
export function valueText(value: unknown): string {
  return typeof value === 'string' ? value : inline(value);
}

/**
 * What the skeleton gives a member: a value its author wrote (its first example, its default, its
 * const), else nothing. A member without one is not filled with a blank that would be sent as if
 * someone had chosen it: a required one gets a blank to overwrite (`""` for text, null otherwise),
 * which Run refuses while it stays blank ({@link blankRequired}); an optional one is left out (the
 * inputs table lists it).
 */
function startingValue(input: WorkflowInput): { value: unknown } | undefined {
  if (input.hasExample) return { value: input.example };
  const { schema } = input;
  if ('default' in schema) return { value: schema.default };
  if ('const' in schema) return { value: schema.const };
  if (!input.required) return undefined;
  return { value: input.types.length === 1 && input.types[0] === 'string' ? '' : null };
}

/** The variables as the JSON editor starts them: the members with a value their author gave, and a blank for each required one without. */
export function skeletonOf(inputs: readonly WorkflowInput[]): FormData {
  const members: [string, unknown][] = [];
  for (const input of inputs) {
    if (input.givenByPlatform) continue;
    const start = startingValue(input);
    if (start !== undefined) members.push([input.name, start.value]);
  }
  return Object.fromEntries(members);
}

/** True for a value that says nothing: null, or text of spaces alone. */
function isBlank(value: unknown): boolean {
  return value === null || (typeof value === 'string' && value.trim() === '');
}

/**
 * The required members (not the platform's own) that `variables` give as a blank, null or `""`,
 * when their schema does not name that blank as a value of its own (its default, const or enum):
 * the platform would take a blank as given, and the job would run against nothing. A member left
 * out is not listed: the platform refuses the start and names it.
 */
export function blankRequired(inputs: readonly WorkflowInput[], variables: FormData): string[] {
  return inputs
    .filter((input) => input.required && !input.givenByPlatform && input.name in variables && isBlank(variables[input.name]))
    .filter((input) => {
      const { schema } = input;
      const value = variables[input.name];
      const named = [...('default' in schema ? [schema.default] : []), ...('const' in schema ? [schema.const] : [])];
      if (Array.isArray(schema.enum)) named.push(...(schema.enum as unknown[]));
      return !named.some((v) => v === value);
    })
    .map((input) => input.name);
}

/** Names as a sentence: `a`, `a and b`, `a, b and c`. */
export function listText(names: readonly string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1] ?? ''}`;
}

/** True for a schema a form field holds as one value: one plain type (an enum of it included), nothing composed. */
function isPlain(schema: unknown): boolean {
  if (!isRecord(schema) || COMPOSED.some((keyword) => keyword in schema)) return false;
  const types = typesOf(schema);
  return types.length === 1 && PLAIN_TYPES.has(types[0] ?? '');
}

/**
 * True for a member a form can ask for at `depth` (1 for the inputSchema's own members): one plain
 * value; a list of plain values (`devices: string[]`); or, within {@link FORM_DEPTH}, an object
 * whose members are all described and themselves askable. Members of any type, lists of objects or
 * of lists, tuples, and objects without members are not.
 */
function isAskable(schema: unknown, depth: number): boolean {
  if (isPlain(schema)) return true;
  if (!isRecord(schema) || COMPOSED.some((keyword) => keyword in schema)) return false;
  const types = typesOf(schema);
  if (types.length !== 1) return false;
  // `items` as a list is a tuple: each place its own schema, which a list of like fields cannot show
  if (types[0] === 'array') return isPlain(schema.items);
  if (types[0] === 'object') return depth < FORM_DEPTH && hasAskableMembers(schema, depth + 1);
  return false;
}

/** True when an object member names every member it takes (none of any other name) and each is askable at `depth`. */
function hasAskableMembers(schema: Record<string, unknown>, depth: number): boolean {
  // members of names the schema does not give (a map) are not fields a form can draw
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) return false;
  const members = inputsOf(schema);
  return members.length > 0 && members.every((member) => isAskable(member.schema, depth));
}

/**
 * True when every member the caller gives is one the form can ask for: one plain value (text, a
 * number, true or false), a list of them, or an object of such members (one level down, no more).
 * The dialog then asks with a form; any other schema is written as JSON.
 */
export function isFormFriendly(inputSchema: unknown): boolean {
  if (!isRecord(inputSchema) || COMPOSED.some((keyword) => keyword in inputSchema)) return false;
  if (inputSchema.type !== undefined && inputSchema.type !== 'object') return false;
  const asked = inputsOf(inputSchema).filter((input) => !input.givenByPlatform);
  if (asked.length === 0) return false;
  return asked.every((input) => isAskable(input.schema, 1));
}

/** A schema without the keywords the form writes its own way. */
function withoutFormOwn(schema: Record<string, unknown>): JsonObject {
  return Object.fromEntries(Object.entries(schema).filter(([keyword]) => !FORM_OWN.has(keyword)));
}

/** The UI of a plain field: the choices' names (`enumNames`, as the platform's forms write them), its example as a placeholder. */
function plainUi(schema: Record<string, unknown>, example: { value: unknown } | undefined): JsonObject {
  const ui: JsonObject = {};
  if (Array.isArray(schema.enumNames)) ui['ui:enumNames'] = schema.enumNames.map(String);
  // a box or a choice has no place for a placeholder
  const typed = !typesOf(schema).includes('boolean') && !Array.isArray(schema.enum);
  if (example !== undefined && typed) ui['ui:placeholder'] = valueText(example.value);
  return ui;
}

/** The first example of a list's items: the items' own, else the first item of the list's own first example. */
function itemExample(list: WorkflowInput, items: Record<string, unknown>): { value: unknown } | undefined {
  if (Array.isArray(items.examples) && items.examples.length > 0) return { value: items.examples[0] };
  if (Array.isArray(list.example) && list.example.length > 0) return { value: list.example[0] };
  return undefined;
}

/** One member as the form asks for it (see {@link formOf}), at any depth: its schema and its UI schema. */
function fieldOf(input: WorkflowInput): { schema: JsonObject; ui: JsonObject } {
  const { schema: own } = input;
  // examples become the placeholder, not a list of suggestions
  const schema: JsonObject = {
    ...withoutFormOwn(own),
    // the title as the schema writes it ("Plan" for plan), the name where it gives none
    title: text(own.title) ?? input.name,
    ...(input.description ? { description: input.description } : {}),
  };
  const ui: JsonObject = {};
  // the description line shows the variable's name (and the description after it)
  if (input.title) Object.assign(ui, { 'ui:options': { variable: input.name }, 'ui:description': input.description ?? input.name });
  if (input.types[0] === 'object') {
    const members = membersOf(inputsOf(own));
    schema.properties = members.properties;
    Object.assign(ui, members.uiSchema);
  } else if (input.types[0] === 'array' && isRecord(own.items)) {
    // an item keeps its title ("Device": it labels each item) and description; its examples become its placeholder
    schema.items = Object.fromEntries(Object.entries(own.items).filter(([keyword]) => keyword !== 'examples'));
    const itemUi = plainUi(own.items, itemExample(input, own.items));
    if (Object.keys(itemUi).length > 0) ui.items = itemUi;
  } else {
    Object.assign(ui, plainUi(own, input.hasExample ? { value: input.example } : undefined));
  }
  return { schema, ui };
}

/** The members of one object as form fields: their schemas by name, and their UI schemas by name where they have one. */
function membersOf(inputs: readonly WorkflowInput[]): { properties: Record<string, JsonObject>; uiSchema: JsonObject } {
  const properties: Record<string, JsonObject> = {};
  const uiSchema: JsonObject = {};
  for (const input of inputs) {
    const field = fieldOf(input);
    properties[input.name] = field.schema;
    if (Object.keys(field.ui).length > 0) uiSchema[input.name] = field.ui;
  }
  return { properties, uiSchema };
}

/**
 * The form of a form-friendly inputSchema: each member labelled by its title (its name where it
 * has none), the name it sets beside a title in code type (the name the workflow's tasks and the
 * platform's refusals use), its description as help, its first example as a placeholder (not a
 * value: nothing is sent that the person did not write). A list's items take the placeholder of
 * theirs; an object's members are asked the same way, inside a group named by the object.
 */
export function formOf(inputSchema: unknown): { schema: JsonObject & { properties: Record<string, JsonObject> }; uiSchema: JsonObject } {
  const asked = inputsOf(inputSchema).filter((input) => !input.givenByPlatform);
  const { properties, uiSchema } = membersOf(asked);
  const required = asked.filter((input) => input.required).map((input) => input.name);
  return { schema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}) }, uiSchema };
}

/** Longest value kept on its member's line in {@link variablesText}; a longer one is indented over several lines. */
const ONE_LINE_VALUE = 60;

/**
 * Variables as JSON text for people to edit: one member a line, a short value (an object of a few
 * members included) on its member's line, a long one indented below it.
 */
export function variablesText(variables: FormData): string {
  // a form field emptied again holds undefined: it is not sent, nor written
  const members = Object.entries(variables).filter(([, value]) => value !== undefined);
  if (members.length === 0) return '{}';
  const lines = members.map(([name, value]) => {
    const short = inline(value);
    const text = short.length <= ONE_LINE_VALUE ? short : JSON.stringify(value, null, 2);
    return `  ${JSON.stringify(name)}: ${text.split('\n').join('\n  ')}`;
  });
  return `{\n${lines.join(',\n')}\n}`;
}

/** A JSON value on one line, spaced as people write it: `{ "a": 1, "b": [1, 2] }`. */
function inline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`;
  if (isRecord(value)) {
    const members = Object.entries(value).filter(([, v]) => v !== undefined);
    return members.length === 0 ? '{}' : `{ ${members.map(([k, v]) => `${JSON.stringify(k)}: ${inline(v)}`).join(', ')} }`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The variables written as JSON, or what is wrong with the text (said before anything is sent). */
export function parseVariables(json: string): { variables: FormData } | { problem: string } {
  if (json.trim() === '') return { variables: {} };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    return { problem: `The variables are not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (isRecord(value)) return { variables: value };
  const kind = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
  return { problem: `The variables must be a JSON object ({ "name": value, … }), not ${kind}` };
}
