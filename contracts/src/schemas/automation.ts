import type { JsonSchema } from '../catalog/types';
import { arr, bool, closed, embed, gbac, name, nullable, obj, str, timestamp } from './common';

/** Automation document (automation-api). Which fields are required is not shown by the spec. */
export interface AutomationDocument {
  _id?: string;
  name?: string;
  description?: string;
  componentType?: string | null;
  created?: string;
  lastUpdated?: string;
  gbac?: { write?: string[]; read?: string[] };
  createdBy?: string;
  lastUpdatedBy?: string;
  componentName?: string | null;
  componentId?: string | null;
  [member: string]: unknown;
}

/** A group reference inside an exported automation's `gbac`. */
export interface GroupReference {
  provenance?: string;
  name?: string;
  description?: string;
}

/** Exported automation: the input items of the catalog import (operation 1). */
export interface ExportedAutomation {
  _id?: string;
  name?: string;
  data?: {
    gbac?: { write?: GroupReference[]; read?: GroupReference[] };
    lastUpdated?: string;
    description?: string;
    workflowId?: string;
    formId?: string;
    [member: string]: unknown;
  };
  lastModifiedBy?: string;
  lastRunAt?: string;
  nextRunAt?: string;
  /** Count and unit, for example `2 weeks`. */
  repeatInterval?: string;
  [member: string]: unknown;
}

/** Automation document returned by the catalog import: an exported automation whose gbac arrays hold group ids. */
export interface CatalogAutomationDocument extends Omit<ExportedAutomation, 'data'> {
  data?: Omit<NonNullable<ExportedAutomation['data']>, 'gbac'> & { gbac?: { write?: string[]; read?: string[] } };
}

/** One item of an import result. */
export interface ImportResultItem<TOriginal = Record<string, unknown>, TCreated = Record<string, unknown>> {
  success: boolean;
  message: string;
  original: TOriginal;
  /** Null when the item failed, and on some successful items. */
  created: TCreated | null;
}

/** Import result of both import routes (operations 1 and 2). */
export interface ImportResult<TOriginal = Record<string, unknown>, TCreated = Record<string, unknown>> {
  status: 'success';
  message: string;
  imported: ImportResultItem<TOriginal, TCreated>[];
}

/** `{ status: 'Created', message, data }` of a successful creation (operations 3 and 10). */
export interface CreatedResult<T> {
  status: 'Created';
  message: string;
  data: T;
}

/** Body of `POST /automation_catalog/automations/import` (operation 1). */
export interface ImportCatalogAutomationsBody {
  automations: ExportedAutomation[];
  options: { adapterMap?: Record<string, unknown> };
}

/** Body of `PUT /operations-manager/automations` (operation 2). */
export interface ImportAutomationsBody {
  automations: Record<string, unknown>[];
  options: { adapterMap?: Record<string, unknown> };
  [member: string]: unknown;
}

/** Body of `POST /operations-manager/automations` (operation 3). */
export interface CreateAutomationBody {
  automation: AutomationDocument & { name: string };
}

function automationDocumentProperties(): Record<string, JsonSchema> {
  return {
    _id: str({ description: 'record id' }),
    name: str(),
    description: str(),
    componentType: nullable(str({ description: 'kind of component, for example workflows' })),
    created: timestamp(),
    lastUpdated: timestamp(),
    gbac: gbac(),
    createdBy: str(),
    lastUpdatedBy: str(),
    componentName: nullable(str()),
    componentId: nullable(str()),
  };
}

/** Automation document (automation-api). */
export const automationDocumentSchema: JsonSchema = {
  $id: 'nap:schemas/automation-document',
  ...obj(automationDocumentProperties()),
};

function groupReference(): JsonSchema {
  return obj({ provenance: str(), name: str(), description: str() });
}

function exportedAutomationProperties(groupItem: JsonSchema): Record<string, JsonSchema> {
  return {
    _id: str({ description: 'record id' }),
    name: str(),
    data: obj({
      gbac: obj({ write: arr(groupItem), read: arr(groupItem) }),
      lastUpdated: timestamp(),
      description: str(),
      workflowId: str({ description: 'id of the workflow' }),
      formId: str({ description: 'id of the form' }),
    }),
    lastModifiedBy: str(),
    lastRunAt: timestamp(),
    nextRunAt: timestamp(),
    repeatInterval: str({ description: 'count and unit, for example 2 weeks' }),
  };
}

/** Exported automation (input of the catalog import). */
export const exportedAutomationSchema: JsonSchema = {
  $id: 'nap:schemas/exported-automation',
  ...obj(exportedAutomationProperties(groupReference())),
};

/** Automation document returned by the catalog import (automationDocument): gbac arrays hold group ids. */
export const catalogAutomationDocumentSchema: JsonSchema = {
  $id: 'nap:schemas/catalog-automation-document',
  ...obj(exportedAutomationProperties({ type: 'string' })),
};

/** One item of an import result, with the schemas of the submitted and the stored document. */
export function importResultItemSchema(original: JsonSchema, created: JsonSchema): JsonSchema {
  return obj(
    {
      success: bool({ description: 'outcome for this item' }),
      message: str(),
      original,
      created: nullable(created),
    },
    ['success', 'message', 'original', 'created'],
  );
}

/** Import result of both import routes; `item` is the schema of an item. */
export function importResultSchema(id: string, item: JsonSchema): JsonSchema {
  return {
    $id: id,
    ...obj({ status: { const: 'success' }, message: str(), imported: arr(item) }, ['status', 'message', 'imported']),
  };
}

/** Import result of the catalog import (operation 1). */
export const catalogImportResultSchema = importResultSchema(
  'nap:schemas/catalog-import-result',
  importResultItemSchema(embed(exportedAutomationSchema), embed(catalogAutomationDocumentSchema)),
);

/** Import result of the operations manager import (operation 2): automation documents in original and created. */
export const automationImportResultSchema = importResultSchema(
  'nap:schemas/automation-import-result',
  importResultItemSchema(embed(automationDocumentSchema), embed(automationDocumentSchema)),
);

/** `{ status: 'Created', message, data }` with the given schema of `data`. */
export function createdResultSchema(id: string, data: JsonSchema): JsonSchema {
  return { $id: id, ...obj({ status: { const: 'Created' }, message: str(), data }, ['status', 'message', 'data']) };
}

function adapterMapOptions(): JsonSchema {
  return closed({ adapterMap: { type: 'object', description: 'adapter name in the export to adapter name here; inner members not shown' } });
}

/** Body of operation 1: `automations` and `options` (only `adapterMap`), nothing else. */
export const importCatalogAutomationsBodySchema: JsonSchema = {
  $id: 'nap:schemas/import-catalog-automations-body',
  ...closed({ automations: arr(embed(exportedAutomationSchema)), options: adapterMapOptions() }, ['automations', 'options']),
};

/**
 * Body of operation 2: `automations` (objects; item shape not shown) and `options` (only `adapterMap`).
 * The spec does not close the top level of this body, so other members are accepted.
 */
export const importAutomationsBodySchema: JsonSchema = {
  $id: 'nap:schemas/import-automations-body',
  ...obj({ automations: arr({ type: 'object' }), options: adapterMapOptions() }, ['automations', 'options']),
};

/** Body of operation 3: only `automation`, which needs a `name` to be created. */
export const createAutomationBodySchema: JsonSchema = {
  $id: 'nap:schemas/create-automation-body',
  ...closed({ automation: obj({ ...automationDocumentProperties(), name: name('name of the automation') }, ['name']) }, ['automation']),
};
