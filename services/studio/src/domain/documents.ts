import type { StoredWorkflowDocument, WorkflowDocument, WorkflowInput } from '@nap/contracts';

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

/** The submitted `_id` when it may be kept (export/import round trips keep references), else undefined. */
export function keepableId(value: unknown): string | undefined {
  return typeof value === 'string' && KEEPABLE_ID.test(value) ? value : undefined;
}

function without(input: Record<string, unknown>, owned: readonly string[]): Record<string, unknown> {
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) if (!owned.includes(key)) rest[key] = value;
  return rest;
}

const WORKFLOW_OWNED = ['_id', 'created', 'created_by', 'last_updated', 'last_updated_by'] as const;

/** Default job-variable schema: any object. */
function openSchema(): Record<string, unknown> {
  return { type: 'object', properties: {}, required: [] };
}

/**
 * The stored form of a workflow that passed validation: the submitted members, the defaults of the
 * members the engine reads (`type`, `description`, `groups`, `transitions`, schemas, `decorators`,
 * canvas settings) and the audit fields. `original` keeps the creation stamp on a replacement.
 */
export function toStoredWorkflow(input: WorkflowInput, id: string, stamp: SaveStamp, original?: OriginalStamp): StoredWorkflowDocument {
  const rest = without(input, WORKFLOW_OWNED);
  return {
    ...rest,
    _id: original?._id ?? id,
    name: input.name,
    description: typeof input.description === 'string' ? input.description : '',
    type: typeof input.type === 'string' ? input.type : 'automation',
    tasks: input.tasks ?? {},
    transitions: (input.transitions ?? {}) as WorkflowDocument['transitions'],
    groups: Array.isArray(input.groups) ? input.groups : [],
    inputSchema: input.inputSchema ?? openSchema(),
    outputSchema: input.outputSchema ?? openSchema(),
    font_size: typeof input.font_size === 'number' ? input.font_size : 12,
    canvasVersion: typeof input.canvasVersion === 'number' ? input.canvasVersion : 3,
    decorators: Array.isArray(input.decorators) ? input.decorators : [],
    created: original?.created ?? stamp.at,
    created_by: original?.createdBy ?? stamp.by,
    last_updated: stamp.at,
    last_updated_by: stamp.by,
  };
}

const CAMEL_OWNED = ['_id', 'created', 'createdBy', 'lastUpdated', 'lastUpdatedBy'] as const;

/** A stored studio template or component group: submitted members plus id and camel-case audit fields. */
export function toStoredCamel<T extends Record<string, unknown>>(input: T, id: string, stamp: SaveStamp, original?: OriginalStamp): Record<string, unknown> & { _id: string } {
  return {
    ...without(input, CAMEL_OWNED),
    _id: original?._id ?? id,
    created: original?.created ?? stamp.at,
    createdBy: original?.createdBy ?? stamp.by,
    lastUpdated: stamp.at,
    lastUpdatedBy: stamp.by,
  };
}

const FORM_OWNED = ['_id', 'created', 'created_by', 'last_updated', 'last_updated_by', 'createdBy', 'lastUpdated', 'lastUpdatedBy'] as const;

/**
 * A stored form: the form's content, `groups` (default empty) and the snake-case audit fields of the
 * spec's Form. JSON forms exported elsewhere carry camel-case audit fields; those are the other
 * system's and are replaced.
 */
export function toStoredForm(input: Record<string, unknown> & { name: string }, id: string, stamp: SaveStamp): Record<string, unknown> & { _id: string; name: string } {
  return {
    ...without(input, FORM_OWNED),
    _id: id,
    name: input.name,
    groups: Array.isArray(input.groups) ? input.groups : [],
    created: stamp.at,
    created_by: stamp.by,
    last_updated: stamp.at,
    last_updated_by: stamp.by,
  };
}
