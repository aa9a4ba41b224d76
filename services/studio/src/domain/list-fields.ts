import type { ListFields } from '@nap/store';

/** Filter and sort fields of the workflow lists (`/automation-studio/automations` and `/automation-studio/workflows`). */
export const WORKFLOW_LIST_FIELDS: ListFields = {
  filter: ['name', '_id', 'description', 'type', 'created_by', 'last_updated_by'],
  sort: ['name', '_id', 'created', 'last_updated'],
  defaultSort: { name: 1 },
};

/** Filter and sort fields of the template and component group lists. */
export const CAMEL_LIST_FIELDS: ListFields = {
  filter: ['name', '_id', 'description', 'type', 'group', 'createdBy', 'lastUpdatedBy'],
  sort: ['name', '_id', 'created', 'lastUpdated'],
  defaultSort: { name: 1 },
};

/** Filter and sort fields of the form list. */
export const FORM_LIST_FIELDS: ListFields = {
  filter: ['name', '_id', 'description', 'created_by', 'last_updated_by'],
  sort: ['name', '_id', 'created', 'last_updated'],
  defaultSort: { name: 1 },
};

/** Filter and sort fields of the transformation list. */
export const TRANSFORMATION_LIST_FIELDS: ListFields = {
  filter: ['name', '_id', 'description', 'createdBy', 'lastUpdatedBy'],
  sort: ['name', '_id', 'created', 'lastUpdated'],
  defaultSort: { name: 1 },
};

/** Filter and sort fields of the project list. */
export const PROJECT_LIST_FIELDS: ListFields = {
  filter: ['name', '_id', 'description', 'createdBy'],
  sort: ['name', '_id', 'created', 'lastUpdated'],
  defaultSort: { name: 1 },
};
