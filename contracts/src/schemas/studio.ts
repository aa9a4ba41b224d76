import type { JsonSchema } from '../catalog/types';
import { arr, name, nullable, obj, str, strings, timestamp } from './common';
import { uuidV4 } from './form';

export * from './workflow-document';

/**
 * Studio documents besides workflows: studio templates (jinja2 and textfsm), component groups and
 * forms as the formbuilder creates and imports them. The spec shows none of their fields; these
 * are the members the studio service reads, everything else is kept as submitted.
 */

/** Kinds of studio template. */
export const STUDIO_TEMPLATE_TYPES = ['jinja2', 'textfsm'] as const;
/** One of {@link STUDIO_TEMPLATE_TYPES}. */
export type StudioTemplateType = (typeof STUDIO_TEMPLATE_TYPES)[number];

/** A studio template: template text and sample data, rendered by TemplateBuilder tasks. */
export interface StudioTemplate {
  _id: string;
  name: string;
  type: StudioTemplateType;
  /** The template text (Jinja2 or TextFSM). */
  template: string;
  /** Sample data for the editor, as JSON text in real documents. */
  data?: string;
  /** A command whose output a TextFSM template parses. */
  command?: string;
  /** Folder-like grouping shown by the editor. */
  group?: string;
  description?: string;
  tags?: unknown[] | null;
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
  [member: string]: unknown;
}

/** A member of a component group: a document by kind and id or name. */
export interface ComponentGroupMember {
  /** Kind of document: `workflow`, `template`, `form`, `transformation`, … */
  type?: string;
  id?: string;
  name?: string;
  [member: string]: unknown;
}

/** A component group: a named set of studio documents. */
export interface ComponentGroup {
  _id: string;
  name: string;
  description?: string;
  members: ComponentGroupMember[];
  created: string;
  createdBy: string;
  lastUpdated: string;
  lastUpdatedBy: string;
  [member: string]: unknown;
}

function studioTemplateProperties(): Record<string, JsonSchema> {
  return {
    _id: str(),
    name: name('template name, unique'),
    type: { type: 'string', enum: [...STUDIO_TEMPLATE_TYPES], description: 'jinja2 or textfsm' },
    template: str({ description: 'template text' }),
    data: str({ description: 'sample data (JSON text)' }),
    command: str({ description: 'command whose output a textfsm template parses' }),
    group: str(),
    description: str(),
    tags: nullable(arr({})),
  };
}

function audit(): Record<string, JsonSchema> {
  return { created: timestamp(), createdBy: str(), lastUpdated: timestamp(), lastUpdatedBy: str() };
}

/** A studio template as a client submits it. */
export const studioTemplateInputSchema: JsonSchema = {
  $id: 'nap:schemas/studio-template-input',
  ...obj(studioTemplateProperties(), ['name', 'type', 'template']),
};

/** A stored studio template. */
export const studioTemplateSchema: JsonSchema = {
  $id: 'nap:schemas/studio-template',
  ...obj({ ...studioTemplateProperties(), ...audit() }, ['_id', 'name', 'type', 'template', 'created', 'createdBy', 'lastUpdated', 'lastUpdatedBy']),
};

function componentGroupProperties(): Record<string, JsonSchema> {
  return {
    _id: str(),
    name: name('component group name, unique'),
    description: str(),
    members: arr(obj({ type: str({ description: 'workflow, template, form, transformation, …' }), id: str(), name: str() }), {
      description: 'the documents of the group, by id or name',
    }),
  };
}

/** A component group as a client submits it. */
export const componentGroupInputSchema: JsonSchema = {
  $id: 'nap:schemas/component-group-input',
  ...obj(componentGroupProperties(), ['name']),
};

/** A stored component group. */
export const componentGroupSchema: JsonSchema = {
  $id: 'nap:schemas/component-group',
  ...obj({ ...componentGroupProperties(), ...audit() }, ['_id', 'name', 'members', 'created', 'createdBy', 'lastUpdated', 'lastUpdatedBy']),
};

/**
 * A form as a client submits it to the formbuilder: a name and the form's content (formbuilder
 * `children`/`elements`, or JSON-form `struct`, `schema`, `uiSchema`, `bindingSchema`,
 * `validationSchema`). `_id` is kept when it is a UUID v4 and made otherwise.
 */
export const formInputSchema: JsonSchema = {
  $id: 'nap:schemas/form-input',
  ...obj(
    {
      _id: str({ description: 'kept when a UUID v4' }),
      name: name('form name, unique'),
      description: str(),
      groups: strings({ description: 'group ids that may see the form; empty: everyone with the role' }),
      children: arr({ type: 'object' }),
      elements: arr({ type: 'object' }),
      struct: { type: 'object' },
      schema: { type: 'object' },
      uiSchema: { type: 'object' },
      bindingSchema: { type: 'object' },
      validationSchema: { type: 'object' },
    },
    ['name'],
  ),
};

/** A stored form: the export shape of operation 19 with its UUID v4 `_id`. */
export const storedFormSchema: JsonSchema = {
  $id: 'nap:schemas/stored-form',
  ...obj(
    { _id: uuidV4(), name: str(), groups: strings(), created: timestamp(), created_by: str(), last_updated: timestamp(), last_updated_by: str() },
    ['_id', 'name', 'groups', 'created', 'created_by', 'last_updated', 'last_updated_by'],
  ),
};

