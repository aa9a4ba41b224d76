import type { Static } from './common';
import { anyObject, anyValue, arr, bool, embed, name, obj, open, printableName, str, withId } from './common';

/**
 * JST transformations (JSON Schema Transformations): documents that wire library methods, user
 * functions and JSON Pointer assignments between incoming and outgoing JSON Schemas. The schemas
 * here say what a document must hold to be stored; what its steps mean is checked by the studio
 * service's JST compiler, which names each problem with its path.
 */

function transformationProperties() {
  return {
    _id: str({ description: 'kept when it is a plain word (ObjectIds of exports), so workflow tasks that name it by tr_id still find it' }),
    name: name('transformation name, unique; project members are named "@<project _id>: <name>"'),
    description: str(),
    incoming: arr(anyObject('a JSON Schema whose $id names the incoming variable'), { description: 'the input variables, in order' }),
    outgoing: arr(anyObject('a JSON Schema whose $id names the outgoing variable'), { description: 'the result members, in order' }),
    steps: arr(anyObject('an assign, method, declaration, template, function or context step')),
    functions: arr(anyObject('a user function: { id, name, incoming, outgoing, steps }'), {
      description: 'one flat table of user functions, called by id',
    }),
    comments: arr(anyValue()),
    view: anyObject('canvas settings'),
    version: anyValue({ description: 'editor version that saved the document' }),
    tags: arr(anyValue()),
  };
}

function audit() {
  return {
    created: str({ description: 'ISO 8601' }),
    createdBy: str(),
    lastUpdated: str({ description: 'ISO 8601' }),
    lastUpdatedBy: str(),
  };
}

/** A transformation as a client submits it (create, update, import): the bare document. */
export const transformationInputSchema = withId(
  'nap:schemas/transformation-input',
  open(
    {
      ...transformationProperties(),
      name: printableName('transformation name, unique; project members are named "@<project _id>: <name>"'),
    },
    ['name'],
  ),
);
export type TransformationInput = Static<typeof transformationInputSchema>;

/** A stored transformation: the submitted document (older `thisArg` callbacks migrated), its id and the audit fields. */
export const transformationSchema = withId(
  'nap:schemas/transformation',
  open({ ...transformationProperties(), ...audit() }, [
    '_id',
    'name',
    'incoming',
    'outgoing',
    'steps',
    'functions',
    'created',
    'createdBy',
    'lastUpdated',
    'lastUpdatedBy',
  ]),
);
/** A stored JST transformation. */
export type Transformation = Static<typeof transformationSchema>;

/** Options of a run: `extractOutput` (a single outgoing answers its bare value), `validateIncoming`, `revertToDefaultValue`. */
export const transformationRunOptionsSchema = withId(
  'nap:schemas/transformation-run-options',
  obj({
    extractOutput: bool({ description: 'with one outgoing schema, answer its value instead of { <$id>: value }' }),
    validateIncoming: bool({
      description: 'check each incoming value against its schema first (400 TRANSFORMATION_INCOMING_INVALID naming the field)',
    }),
    revertToDefaultValue: bool({ description: 'schema defaults for missing incoming values and for outgoing values nothing assigned' }),
  }),
);
export type TransformationRunOptions = Static<typeof transformationRunOptionsSchema>;

/** The body of a run: `{ incoming, options }`; a body with `data` and no `incoming` runs with `data` as incoming. */
export const transformationRunBodySchema = withId(
  'nap:schemas/transformation-run-body',
  obj({
    incoming: anyObject("input values by the transformation's incoming $id"),
    data: anyObject('taken as incoming when incoming is absent'),
    options: embed(transformationRunOptionsSchema),
  }),
);
export type TransformationRunBody = Static<typeof transformationRunBodySchema>;

function problem() {
  return obj(
    {
      code: str({ description: 'UNKNOWN_METHOD, BAD_ASSIGN, CYCLE, …' }),
      message: str(),
      path: str({ description: 'JSON Pointer into the document: /steps/4, /functions/0/steps/2' }),
    },
    ['code', 'message', 'path'],
  );
}

/** What `POST /transformations/validate` answers. */
export const transformationValidationSchema = withId(
  'nap:schemas/transformation-validation',
  obj({ isValid: bool(), errors: arr(problem()), warnings: arr(problem()) }, ['isValid', 'errors', 'warnings']),
);
export type TransformationValidation = Static<typeof transformationValidationSchema>;
/** One problem of a transformation: `{ code, message, path }`. */
export type TransformationProblem = TransformationValidation['errors'][number];
