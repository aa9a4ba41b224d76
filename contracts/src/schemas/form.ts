import type { JsonSchema } from '../catalog/types';
import { arr, closed, obj, str, strings, timestamp, UUID_V4_PATTERN } from './common';

/** A form as `POST /formbuilder/forms/export` returns it (operation 19). */
export interface Form {
  /** UUID v4. */
  _id: string;
  name: string;
  children?: {
    type?: string;
    name?: string;
    description?: string;
    /** Serialized JSON. */
    element?: string;
    source_type?: string;
    source?: string;
    id?: string;
    yangkey?: string;
    key?: string;
    properties?: { type?: string; prefix?: string };
    [member: string]: unknown;
  }[];
  elements?: { type?: string; id?: { name?: string }; [member: string]: unknown }[];
  groups?: string[];
  created?: string;
  last_updated?: string;
  created_by?: string;
  last_updated_by?: string;
  [member: string]: unknown;
}

/** Body of operation 19: `options` with `_id` and/or `name`. */
export interface ExportFormBody {
  options: { _id: string; name?: string } | { _id?: string; name: string };
}

/** A UUID v4 string schema (format uuid plus the version-4 pattern). */
export function uuidV4(description = 'UUID v4'): JsonSchema {
  return { type: 'string', format: 'uuid', pattern: UUID_V4_PATTERN, description };
}

/** Form (export result). */
export const formSchema: JsonSchema = {
  $id: 'nap:schemas/form',
  ...obj(
    {
      _id: uuidV4(),
      name: str({ description: 'form name' }),
      children: arr(
        obj({
          type: str({ description: 'value field' }),
          name: str(),
          description: str(),
          element: str({ description: 'serialized JSON' }),
          source_type: str({ description: 'value method in examples' }),
          source: str(),
          id: str(),
          yangkey: str(),
          key: str(),
          properties: obj({ type: str(), prefix: str() }),
        }),
      ),
      elements: arr(obj({ type: str({ description: 'value method' }), id: obj({ name: str() }) })),
      groups: strings({ description: 'group ids' }),
      created: timestamp(),
      last_updated: timestamp(),
      created_by: str(),
      last_updated_by: str(),
    },
    ['_id', 'name'],
  ),
};

/** Body of operation 19: only `options`, which has only `_id` (UUID v4) and `name`, at least one of them. */
export const exportFormBodySchema: JsonSchema = {
  $id: 'nap:schemas/export-form-body',
  ...closed(
    {
      options: closed({ _id: uuidV4('form id, UUID v4'), name: str({ minLength: 1, description: 'form name' }) }, [], {
        anyOf: [{ required: ['_id'] }, { required: ['name'] }],
      }),
    },
    ['options'],
  ),
};
