import type { Static } from '@sinclair/typebox';
import { anyObject, anyValue, arr, closed, embed, int, name, oneOf, open, printableName, str, timestamp, withId } from './common';
import { envelopeOf, envelopePageOf } from './envelope';

/**
 * Projects: the unit users move between platforms. A project holds components (workflows,
 * transformations, studio templates, MOP command templates, JSON forms), each stored by its owning
 * service under the name `@<project _id>: <name>`, and the folders they are shown in.
 */

/** Kinds of project component, as exported projects name them. */
export const PROJECT_COMPONENT_TYPES = ['workflow', 'transformation', 'template', 'mopCommandTemplate', 'jsonForm'] as const;
/** One of {@link PROJECT_COMPONENT_TYPES}. */
export type ProjectComponentType = (typeof PROJECT_COMPONENT_TYPES)[number];

function componentProperties() {
  return {
    iid: int({ minimum: 0, description: "the component's number within the project (folders refer to it)" }),
    type: oneOf(PROJECT_COMPONENT_TYPES),
    reference: str({ description: "the stored document's id (or name, for MOP templates)" }),
    folder: str({ description: 'folder path, for example /Port Turn Up' }),
  };
}

/** A component of an exported project: the document itself with its original name. */
export const projectComponentSchema = withId(
  'nap:schemas/project-component',
  open({ ...componentProperties(), document: anyObject('the component document, with its original name') }, ['iid', 'type', 'document']),
);
/** A component of an exported project. */
export type ProjectComponent = Static<typeof projectComponentSchema>;

function projectProperties() {
  return {
    _id: str({ description: "project id; the prefix of its components' stored names" }),
    name: name('project name'),
    description: str(),
    folders: arr(anyValue(), { description: 'folder tree: { nodeType: folder, name, children } and { nodeType: component, iid }' }),
  };
}

/** A project as exported (and imported): every component with its document. */
export const exportedProjectSchema = withId(
  'nap:schemas/exported-project',
  open({ ...projectProperties(), name: printableName('project name'), components: arr(embed(projectComponentSchema)) }, [
    'name',
    'components',
  ]),
);
/** A project as exported and imported. */
export type ExportedProject = Static<typeof exportedProjectSchema>;

/** A component as a stored project lists it: where its document lives. */
export const storedProjectComponentSchema = withId(
  'nap:schemas/stored-project-component',
  open(
    {
      ...componentProperties(),
      reference: name('id of the stored document'),
      name: str({ description: 'the original name' }),
      storedName: str({ description: '@<project _id>: <name>' }),
    },
    ['iid', 'type', 'reference', 'name', 'storedName'],
  ),
);

/** A stored project: its components by reference. */
export const projectSchema = withId(
  'nap:schemas/project',
  open(
    {
      ...projectProperties(),
      _id: name('project id'),
      components: arr(embed(storedProjectComponentSchema)),
      created: timestamp(),
      createdBy: str(),
      lastUpdated: timestamp(),
      lastUpdatedBy: str(),
    },
    ['_id', 'name', 'components', 'folders', 'created', 'createdBy', 'lastUpdated', 'lastUpdatedBy'],
  ),
);
/** A stored project. */
export type Project = Static<typeof projectSchema>;

/** `{ message, data: project, metadata }`. */
export const projectEnvelopeSchema = envelopeOf('nap:schemas/project-envelope', embed(projectSchema));
/** A page of projects in the envelope. */
export const projectPageSchema = envelopePageOf('nap:schemas/project-page', embed(projectSchema));

/**
 * Body of `PATCH /automation-studio/projects/:id`: the members of the project itself a user changes
 * (its components change through their own routes), each optional (at least one); any other member
 * is refused.
 */
export const updateProjectBodySchema = withId(
  'nap:schemas/update-project-body',
  closed({ name: printableName('new name of the project (unique)'), description: str() }, [], { minProperties: 1 }),
);
/** Body of `PATCH /automation-studio/projects/:id`. */
export type UpdateProjectBody = Static<typeof updateProjectBodySchema>;

/**
 * How `POST …/projects/:id/components/add` takes in each document: `move` (the document itself
 * becomes the member, renamed `@<project _id>: <name>`), `copy` (a new member, a copy; the original
 * stays), `duplicate` (as copy, under the first free name `<name> (2)`, `(3)`, … when its name is
 * taken in the project) or `create` (a document already named as a member of the project, made
 * for it through its own route, is taken in as it is).
 */
export const ADD_COMPONENT_MODES = ['move', 'copy', 'duplicate', 'create'] as const;
/** One of {@link ADD_COMPONENT_MODES}. */
export type AddComponentMode = (typeof ADD_COMPONENT_MODES)[number];

/** How `DELETE …/projects/:id/components/:componentId` removes one: `delete` the document, or `move` it out of the project. */
export const REMOVE_COMPONENT_MODES = ['delete', 'move'] as const;
/** One of {@link REMOVE_COMPONENT_MODES}. */
export type RemoveComponentMode = (typeof REMOVE_COMPONENT_MODES)[number];

/** A document to add to a project: its type, its id (`reference`) and where the project shows it. */
export const addedComponentSchema = withId(
  'nap:schemas/added-project-component',
  closed(
    {
      iid: int({ minimum: 0, description: "the component's number in the project; the next free one when absent" }),
      type: oneOf(PROJECT_COMPONENT_TYPES),
      reference: name("the document's id (a MOP command template's id or name)"),
      folder: printableName('folder path, for example /Port Turn Up; / when absent'),
    },
    ['type', 'reference'],
  ),
);
/** A document to add to a project. */
export type AddedComponent = Static<typeof addedComponentSchema>;

/** Body of `POST /automation-studio/projects/:id/components/add`. */
export const addProjectComponentsBodySchema = withId(
  'nap:schemas/add-project-components-body',
  closed(
    {
      components: arr(embed(addedComponentSchema), { minItems: 1 }),
      mode: oneOf(ADD_COMPONENT_MODES, { default: 'create', description: 'how each document is taken in' }),
    },
    ['components'],
  ),
);
/** Body of `POST /automation-studio/projects/:id/components/add`. */
export type AddProjectComponentsBody = Static<typeof addProjectComponentsBodySchema>;

/** Body of `POST /automation-studio/projects`: a new project, with copies of the documents `components` names. */
export const createProjectBodySchema = withId(
  'nap:schemas/create-project-body',
  closed(
    {
      name: printableName('project name (unique)'),
      description: str(),
      components: arr(embed(addedComponentSchema), { description: 'documents copied into the project (as components/add with mode copy)' }),
    },
    ['name'],
  ),
);
/** Body of `POST /automation-studio/projects`. */
export type CreateProjectBody = Static<typeof createProjectBodySchema>;

/** Body of `DELETE /automation-studio/projects/:id/components/:componentId` (optional). */
export const removeProjectComponentBodySchema = withId(
  'nap:schemas/remove-project-component-body',
  closed({
    options: closed({
      mode: oneOf(REMOVE_COMPONENT_MODES, { default: 'move', description: 'delete the document, or move it out of the project' }),
    }),
  }),
);
/** Body of `DELETE /automation-studio/projects/:id/components/:componentId`. */
export type RemoveProjectComponentBody = Static<typeof removeProjectComponentBodySchema>;
