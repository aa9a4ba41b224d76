import {
  AppError,
  UUID_V4_PATTERN,
  checkNotReservedKey,
  componentGroupInputSchema,
  formInputSchema,
  parseAs,
  studioTemplateInputSchema,
} from '@nap/contracts';
import type {
  ComponentGroup,
  ComponentGroupInput,
  FormInput,
  StoredForm,
  StudioTemplate,
  StudioTemplateInput,
  WorkflowInput,
} from '@nap/contracts';
import { checked } from './checked';

/**
 * Building stored studio documents from what clients submit. Pure: ids and times come in. Members
 * the service does not own are kept exactly as submitted, so real documents import as they are; the
 * service's own members (id and audit fields) are always the service's.
 */

/** Who saves a document and when. */
export interface SaveStamp {
  /** Username of the caller. */
  by: string;
  /** ISO 8601. */
  at: string;
}

/** The creation stamp of a document that is being replaced. */
export interface OriginalStamp {
  _id: string;
  created: string;
  createdBy: string;
}

/** Ids this platform keeps when a document brings one: ObjectIds, UUIDs, short words. */
const KEEPABLE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The submitted `_id` when it may be kept (export/import round trips keep references), else
 * undefined (the document is given a new one). An id among `RESERVED_KEYS` (`__proto__`,
 * `constructor`, `prototype`) is refused: 400 `VALIDATION_FAILED` naming `member` (`body._id`).
 */
export function keepableId(value: unknown, member: string): string | undefined {
  checkNotReservedKey(value, member);
  return typeof value === 'string' && KEEPABLE_ID.test(value) ? value : undefined;
}

/** The id and audit members a stored document takes from the service, never as submitted: camel case (studio documents), snake case (workflows, forms). */
const CAMEL_STAMP = ['_id', 'created', 'createdBy', 'lastUpdated', 'lastUpdatedBy'] as const;
const SNAKE_STAMP = ['_id', 'created', 'created_by', 'last_updated', 'last_updated_by'] as const;

/** `T` without the members `K` (unlike `Omit`, the members a type names beside an index signature stay). */
export type Without<T, K extends PropertyKey> = { [P in keyof T as P extends K ? never : P]: T[P] };

/** A copy of `input` without the members `keys` names. */
function without<T extends object, K extends string>(input: T, keys: readonly K[]): Without<T, K> {
  const dropped = new Set<string>(keys);
  return Object.fromEntries(Object.entries(input).filter(([key]) => !dropped.has(key))) as Without<T, K>;
}

/** The submitted members of a document but its id and camel-case audit fields (`createdBy`, `lastUpdated`, …). */
export function withoutCamelStamp<T extends object>(input: T): Without<T, (typeof CAMEL_STAMP)[number]> {
  return without(input, CAMEL_STAMP);
}

/** The submitted members of a document but its id and snake-case audit fields (`created_by`, `last_updated`, …). */
export function withoutSnakeStamp<T extends object>(input: T): Without<T, (typeof SNAKE_STAMP)[number]> {
  return without(input, SNAKE_STAMP);
}

/** Default job-variable schema: any object. */
function openSchema(): Record<string, unknown> {
  return { type: 'object', properties: {}, required: [] };
}

/**
 * The stored form of a workflow that passed validation: the submitted members, the defaults of the
 * members the engine reads (`type`, `description`, `groups`, `transitions`, schemas, `decorators`,
 * canvas settings) and the audit fields. `original` keeps the creation stamp on a replacement. The
 * caller checks the result against the stored workflow schema (the graph's meaning was checked by
 * `validateWorkflow`, which the submitted schema cannot say).
 */
export function toStoredWorkflow(input: WorkflowInput, id: string, stamp: SaveStamp, original?: OriginalStamp) {
  const rest = withoutSnakeStamp(input);
  return {
    ...rest,
    _id: original?._id ?? id,
    name: input.name,
    description: input.description ?? '',
    type: input.type ?? 'automation',
    tasks: input.tasks ?? {},
    transitions: input.transitions ?? {},
    groups: input.groups ?? [],
    inputSchema: input.inputSchema ?? openSchema(),
    outputSchema: input.outputSchema ?? openSchema(),
    font_size: input.font_size ?? 12,
    canvasVersion: input.canvasVersion ?? 3,
    decorators: input.decorators ?? [],
    created: original?.created ?? stamp.at,
    created_by: original?.createdBy ?? stamp.by,
    last_updated: stamp.at,
    last_updated_by: stamp.by,
  };
}

/** The id and camel-case audit fields of a stored studio template, component group or transformation. */
export function camelStamp(id: string, stamp: SaveStamp, original?: OriginalStamp) {
  return {
    _id: original?._id ?? id,
    created: original?.created ?? stamp.at,
    createdBy: original?.createdBy ?? stamp.by,
    lastUpdated: stamp.at,
    lastUpdatedBy: stamp.by,
  };
}

/** A stored studio template: the submitted members (defaults for the optional ones the editor shows), id and audit fields. */
export function toStoredTemplate(input: StudioTemplateInput, id: string, stamp: SaveStamp, original?: OriginalStamp): StudioTemplate {
  const rest = withoutCamelStamp(input);
  return { description: '', group: '', template: '', data: '', command: '', tags: [], ...rest, ...camelStamp(id, stamp, original) };
}

/** A stored component group: the submitted members (no members by default), id and audit fields. */
export function toStoredComponentGroup(input: ComponentGroupInput, id: string, stamp: SaveStamp, original?: OriginalStamp): ComponentGroup {
  const rest = withoutCamelStamp(input);
  return { description: '', members: [], ...rest, ...camelStamp(id, stamp, original) };
}

/**
 * A stored form: the form's content, `children`, `elements` and `groups` (each default empty) and the
 * snake-case audit fields of the spec's Form. JSON forms exported elsewhere carry camel-case audit
 * fields; those are the other system's and are replaced. An empty or null `id` member (ipctl sends
 * `""`) names nothing and is left out: the store's unique index on `id` would count it as a value.
 */
export function toStoredForm(input: FormInput, id: string, stamp: SaveStamp): StoredForm {
  const rest = withoutCamelStamp(withoutSnakeStamp(input));
  const own: unknown = (rest as { id?: unknown }).id;
  if (own === '' || own === null) delete (rest as { id?: unknown }).id;
  return {
    ...rest,
    _id: id,
    name: input.name,
    children: input.children ?? [],
    elements: input.elements ?? [],
    groups: input.groups ?? [],
    created: stamp.at,
    created_by: stamp.by,
    last_updated: stamp.at,
    last_updated_by: stamp.by,
  };
}

/**
 * A kind of camel-stamped studio document (templates, component groups): how a submitted one is
 * checked, and how the stored one is made.
 */
export interface CamelKind<I extends { _id?: unknown }, T> {
  /** What the audit trail calls a document of this kind (`template`, `component-group`). */
  auditKind: string;
  /** The submitted document typed by its input schema; 400 `VALIDATION_FAILED` naming each problem, members prefixed by `member`. */
  check(input: unknown, member: string): I;
  /** The stored document: the submitted members, defaults, `_id` and the camel-case audit fields. */
  toStored(input: I, id: string, stamp: SaveStamp, original?: OriginalStamp): T;
}

export const TEMPLATE_KIND: CamelKind<StudioTemplateInput, StudioTemplate> = {
  auditKind: 'template',
  check: (input, member) => checked('template', input, () => parseAs(studioTemplateInputSchema, input, member)),
  toStored: toStoredTemplate,
};

export const COMPONENT_GROUP_KIND: CamelKind<ComponentGroupInput, ComponentGroup> = {
  auditKind: 'component-group',
  check: (input, member) => checked('component group', input, () => parseAs(componentGroupInputSchema, input, member)),
  toStored: toStoredComponentGroup,
};

const UUID_V4 = new RegExp(UUID_V4_PATTERN);

/**
 * What a form's `_id` that is not a UUID v4 (the id of the spec's Form) comes to: `refuse` (a form a
 * client writes: 400 naming `<member>._id`, never silently replaced) or `replace` (a document
 * imported from another system, whose ids are its own: the form is given a new one).
 */
export type ForeignFormId = 'refuse' | 'replace';

/** A submitted form (formbuilder form or JSON form) typed by its schema; 400 `VALIDATION_FAILED` naming the form. */
export function checkForm(input: unknown, member: string, foreignId: ForeignFormId = 'replace'): FormInput {
  return checked('form', input, () => {
    const form = parseAs(formInputSchema, input, member);
    if (foreignId === 'refuse' && form._id !== undefined && !UUID_V4.test(form._id)) {
      throw new AppError('VALIDATION_FAILED', `${member}._id "${form._id}" is not a UUID v4; leave _id out and the form is given one`, {
        details: [{ member: `${member}._id`, message: 'must be a UUID v4 (or absent)' }],
      });
    }
    return form;
  });
}

/** A stored form as the spec's Form: `children` and `elements` are `[]` in forms stored without them (by earlier releases). */
export function asForm(form: StoredForm): StoredForm {
  return {
    ...form,
    children: Array.isArray(form.children) ? form.children : [],
    elements: Array.isArray(form.elements) ? form.elements : [],
  };
}

/**
 * The id a new form keeps: its submitted `_id` when that is a UUID v4 (`POST /formbuilder/forms/export`
 * finds forms by UUID v4), in lower case; undefined otherwise (an `id` member from another system
 * stays a member).
 */
export function keptFormId(id: string | undefined): string | undefined {
  return id !== undefined && UUID_V4.test(id) ? id.toLowerCase() : undefined;
}
