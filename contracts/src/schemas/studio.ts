import type { Static } from '@sinclair/typebox';
import { anyObject, anyValue, arr, name, nullable, oneOf, open, printableName, str, strings, timestamp, withId } from './common';
import { uuidV4 } from './form';

export * from './workflow-document';

/**
 * Studio documents besides workflows: studio templates (jinja2 and textfsm), component groups and
 * forms as the formbuilder creates and imports them. The spec shows none of their fields; these
 * are the members the studio service reads, everything else is kept as submitted (the types are
 * open: members beyond those named are `unknown`).
 */

/** Kinds of studio template. */
export const STUDIO_TEMPLATE_TYPES = ['jinja2', 'textfsm'] as const;
/** One of {@link STUDIO_TEMPLATE_TYPES}. */
export type StudioTemplateType = (typeof STUDIO_TEMPLATE_TYPES)[number];

function studioTemplateProperties() {
  return {
    _id: str(),
    name: name('template name, unique'),
    type: oneOf(STUDIO_TEMPLATE_TYPES, { description: 'jinja2 or textfsm' }),
    template: str({ description: 'template text' }),
    data: str({ description: 'sample data (JSON text)' }),
    command: str({ description: 'command whose output a textfsm template parses' }),
    group: str(),
    description: str(),
    tags: nullable(arr(anyValue())),
  };
}

/** The audit members of camel-case studio documents (templates, component groups). */
function audit() {
  return { created: timestamp(), createdBy: str(), lastUpdated: timestamp(), lastUpdatedBy: str() };
}

/** A studio template as a client submits it. */
export const studioTemplateInputSchema = withId(
  'nap:schemas/studio-template-input',
  open({ ...studioTemplateProperties(), name: printableName('template name, unique') }, ['name', 'type']),
);
/**
 * A studio template as a client submits it: name, type and template text (empty when left out, as
 * ipctl creates one); `_id` is kept when it is a plain word.
 */
export type StudioTemplateInput = Static<typeof studioTemplateInputSchema>;

/** A stored studio template. */
export const studioTemplateSchema = withId(
  'nap:schemas/studio-template',
  open({ ...studioTemplateProperties(), ...audit() }, [
    '_id',
    'name',
    'type',
    'template',
    'created',
    'createdBy',
    'lastUpdated',
    'lastUpdatedBy',
  ]),
);
/** A studio template: template text and sample data, rendered by TemplateBuilder tasks. */
export type StudioTemplate = Static<typeof studioTemplateSchema>;

function componentGroupMember() {
  return open({ type: str({ description: 'workflow, template, form, transformation, …' }), id: str(), name: str() });
}
/** A member of a component group: a document by kind (`workflow`, `template`, `form`, …) and id or name. */
export type ComponentGroupMember = Static<ReturnType<typeof componentGroupMember>>;

function componentGroupProperties() {
  return {
    _id: str(),
    name: name('component group name, unique'),
    description: str(),
    members: arr(componentGroupMember(), { description: 'the documents of the group, by id or name' }),
  };
}

/** A component group as a client submits it. */
export const componentGroupInputSchema = withId(
  'nap:schemas/component-group-input',
  open({ ...componentGroupProperties(), name: printableName('component group name, unique') }, ['name']),
);
/** A component group as a client submits it. */
export type ComponentGroupInput = Static<typeof componentGroupInputSchema>;

/** A stored component group. */
export const componentGroupSchema = withId(
  'nap:schemas/component-group',
  open({ ...componentGroupProperties(), ...audit() }, ['_id', 'name', 'members', 'created', 'createdBy', 'lastUpdated', 'lastUpdatedBy']),
);
/** A component group: a named set of studio documents. */
export type ComponentGroup = Static<typeof componentGroupSchema>;

/**
 * A form as a client submits it to the formbuilder: a name and the form's content (formbuilder
 * `children`/`elements`, or JSON-form `struct`, `schema`, `uiSchema`, `bindingSchema`,
 * `validationSchema`). `_id` is kept when it is a UUID v4 and made otherwise.
 */
export const formInputSchema = withId(
  'nap:schemas/form-input',
  open(
    {
      _id: str({ description: 'kept when a UUID v4' }),
      name: printableName('form name, unique'),
      description: str(),
      groups: strings({ description: 'group ids that may see the form; empty: everyone with the role' }),
      children: arr(anyObject()),
      elements: arr(anyObject()),
      struct: anyObject(),
      schema: anyObject(),
      uiSchema: anyObject(),
      bindingSchema: anyObject(),
      validationSchema: anyObject(),
    },
    ['name'],
  ),
);
/** A form as a client submits it (formbuilder form or JSON form). */
export type FormInput = Static<typeof formInputSchema>;

/** A stored form: the export shape of `POST /formbuilder/forms/export` with its UUID v4 `_id`. */
export const storedFormSchema = withId(
  'nap:schemas/stored-form',
  open(
    {
      _id: uuidV4(),
      name: str(),
      groups: strings(),
      created: timestamp(),
      created_by: str(),
      last_updated: timestamp(),
      last_updated_by: str(),
    },
    ['_id', 'name', 'groups', 'created', 'created_by', 'last_updated', 'last_updated_by'],
  ),
);
/** A stored form: its content as submitted, `groups` and the snake-case audit fields. */
export type StoredForm = Static<typeof storedFormSchema>;
