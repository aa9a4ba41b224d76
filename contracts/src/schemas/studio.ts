import type { JsonSchema } from '../catalog/types';
import { int, mapOf, name, num, obj, str, strings, timestamp } from './common';

/** A workflow document (studio automation). Fields beyond the graph are open. */
export interface WorkflowDocument {
  _id: string;
  name: string;
  description?: string;
  type?: string;
  tasks: Record<string, Record<string, unknown>>;
  transitions: Record<string, Record<string, { type?: string; state?: string }>>;
  groups?: string[];
  created?: string;
  created_by?: string;
  last_updated?: string;
  last_updated_by?: string;
  font_size?: number;
  canvasVersion?: number;
  [member: string]: unknown;
}

function workflowProperties(): Record<string, JsonSchema> {
  return {
    _id: str(),
    name: name('workflow name, unique'),
    description: str(),
    type: str({ description: 'automation' }),
    tasks: mapOf(
      obj({ name: str(), app: str(), type: str(), summary: str(), description: str(), x: num(), y: num(), variables: { type: 'object' } }),
      { description: 'task id to task; workflow_start and workflow_end are the entry and exit' },
    ),
    transitions: mapOf(mapOf(obj({ type: str(), state: str() })), { description: 'from-task id to to-task id to { type, state }' }),
    groups: strings({ description: 'group ids' }),
    created: timestamp(),
    created_by: str(),
    last_updated: timestamp(),
    last_updated_by: str(),
    font_size: int(),
    canvasVersion: int(),
  };
}

/** A stored workflow document. */
export const workflowDocumentSchema: JsonSchema = {
  $id: 'nap:schemas/workflow-document',
  ...obj(workflowProperties(), ['_id', 'name', 'tasks', 'transitions']),
};

/** A workflow document as a client submits it: a name is required, `_id` and the audit fields are the service's. */
export const workflowInputSchema: JsonSchema = {
  $id: 'nap:schemas/workflow-input',
  ...obj(workflowProperties(), ['name']),
};
