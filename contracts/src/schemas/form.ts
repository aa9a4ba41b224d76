import type { Static } from '@sinclair/typebox';
import { arr, closed, obj, open, str, strings, timestamp, withId, withOneOf, UUID_V4_PATTERN } from './common';

/** A UUID v4 string schema (format uuid plus the version-4 pattern). */
export function uuidV4(description = 'UUID v4') {
  return str({ format: 'uuid', pattern: UUID_V4_PATTERN, description });
}

function formChild() {
  return open({
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
  });
}

/** Form (export result): members beyond those named are part of the form and kept. */
export const formSchema = withId(
  'nap:schemas/form',
  open(
    {
      _id: uuidV4(),
      name: str({ description: 'form name' }),
      children: arr(formChild()),
      elements: arr(open({ type: str({ description: 'value method' }), id: obj({ name: str() }) })),
      groups: strings({ description: 'group ids' }),
      created: timestamp(),
      last_updated: timestamp(),
      created_by: str(),
      last_updated_by: str(),
    },
    ['_id', 'name'],
  ),
);
/** A form as `POST /formbuilder/forms/export` returns it; `_id` is a UUID v4. */
export type Form = Static<typeof formSchema>;

/** Body of `POST /formbuilder/forms/export`: only `options`, which has only `_id` (UUID v4) and `name`, at least one of them. */
export const exportFormBodySchema = withId(
  'nap:schemas/export-form-body',
  closed(
    {
      options: withOneOf(closed({ _id: uuidV4('form id, UUID v4'), name: str({ minLength: 1, description: 'form name' }) }), [
        '_id',
        'name',
      ]),
    },
    ['options'],
  ),
);
/** Body of `POST /formbuilder/forms/export`: `options` with `_id` and/or `name`. */
export type ExportFormBody = Static<typeof exportFormBodySchema>;
