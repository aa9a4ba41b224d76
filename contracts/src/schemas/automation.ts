import type { Static, TSchema } from '@sinclair/typebox';
import { anyObject, arr, bool, closed, embed, gbac, literal, nullable, obj, open, printableName, str, timestamp, withId } from './common';

export function automationDocumentProperties() {
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

/** Automation document (automation-api). Which fields are required is not shown by the spec. */
export const automationDocumentSchema = withId('nap:schemas/automation-document', open(automationDocumentProperties()));
/** Automation document (automation-api). */
export type AutomationDocument = Static<typeof automationDocumentSchema>;

function groupReference() {
  return obj({ provenance: str(), name: str(), description: str() });
}
/** A group reference inside an exported automation's `gbac`. */
export type GroupReference = Static<ReturnType<typeof groupReference>>;

function exportedAutomationProperties<G extends TSchema>(groupItem: G) {
  return {
    _id: str({ description: 'record id' }),
    name: str(),
    data: open({
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
export const exportedAutomationSchema = withId('nap:schemas/exported-automation', open(exportedAutomationProperties(groupReference())));
/** Exported automation: the input items of the catalog import (`POST /automation_catalog/automations/import`). */
export type ExportedAutomation = Static<typeof exportedAutomationSchema>;

/** Automation document returned by the catalog import (automationDocument): gbac arrays hold group ids. */
export const catalogAutomationDocumentSchema = withId('nap:schemas/catalog-automation-document', open(exportedAutomationProperties(str())));
/** Automation document returned by the catalog import: an exported automation whose gbac arrays hold group ids. */
export type CatalogAutomationDocument = Static<typeof catalogAutomationDocumentSchema>;

/** One item of an import result, with the schemas of the submitted and the stored document. */
export function importResultItemSchema<O extends TSchema, C extends TSchema>(original: O, created: C) {
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

/** One item of an import result: `created` is null when the item failed, and on some successful items. */
export type ImportResultItem<TOriginal = Record<string, unknown>, TCreated = Record<string, unknown>> = {
  success: boolean;
  message: string;
  original: TOriginal;
  created: TCreated | null;
};

/** Import result of both import routes; `item` is the schema of an item. */
export function importResultSchema<I extends TSchema>(id: string, item: I) {
  return withId(id, obj({ status: literal('success'), message: str(), imported: arr(item) }, ['status', 'message', 'imported']));
}

/** Import result of the import routes (operations 1 and 2 and the studio imports). */
export type ImportResult<TOriginal = Record<string, unknown>, TCreated = Record<string, unknown>> = {
  status: 'success';
  message: string;
  imported: ImportResultItem<TOriginal, TCreated>[];
};

/** Import result of the catalog import (`POST /automation_catalog/automations/import`). */
export const catalogImportResultSchema = importResultSchema(
  'nap:schemas/catalog-import-result',
  importResultItemSchema(embed(exportedAutomationSchema), embed(catalogAutomationDocumentSchema)),
);

/** Import result of the operations manager import (`PUT /operations-manager/automations`): automation documents in original and created. */
export const automationImportResultSchema = importResultSchema(
  'nap:schemas/automation-import-result',
  importResultItemSchema(embed(automationDocumentSchema), embed(automationDocumentSchema)),
);

/** `{ status: 'Created', message, data }` with the given schema of `data`. */
export function createdResultSchema<D extends TSchema>(id: string, data: D) {
  return withId(id, obj({ status: literal('Created'), message: str(), data }, ['status', 'message', 'data']));
}

/** `{ status: 'Created', message, data }` of a successful creation (operations 3 and 10). */
export type CreatedResult<T> = { status: 'Created'; message: string; data: T };

function adapterMapOptions() {
  return closed({ adapterMap: anyObject('adapter name in the export to adapter name here; inner members not shown') });
}

/** Body of `POST /automation_catalog/automations/import`: `automations` and `options` (only `adapterMap`), nothing else. */
export const importCatalogAutomationsBodySchema = withId(
  'nap:schemas/import-catalog-automations-body',
  closed({ automations: arr(embed(exportedAutomationSchema)), options: adapterMapOptions() }, ['automations', 'options']),
);
/** Body of `POST /automation_catalog/automations/import`. */
export type ImportCatalogAutomationsBody = Static<typeof importCatalogAutomationsBodySchema>;

/**
 * Body of `PUT /operations-manager/automations`: `automations` (objects; item shape not shown) and `options` (only `adapterMap`).
 * The spec does not close the top level of this body, so other members are accepted.
 */
export const importAutomationsBodySchema = withId(
  'nap:schemas/import-automations-body',
  open({ automations: arr(anyObject()), options: adapterMapOptions() }, ['automations', 'options']),
);
/** Body of `PUT /operations-manager/automations`. */
export type ImportAutomationsBody = Static<typeof importAutomationsBodySchema>;

/** Body of `POST /operations-manager/automations`: only `automation`, which needs a `name` to be created. */
export const createAutomationBodySchema = withId(
  'nap:schemas/create-automation-body',
  closed({ automation: open({ ...automationDocumentProperties(), name: printableName('name of the automation') }, ['name']) }, [
    'automation',
  ]),
);
/** Body of `POST /operations-manager/automations`. */
export type CreateAutomationBody = Static<typeof createAutomationBodySchema>;

/**
 * Body of `PATCH /operations-manager/automations/:id`: the members of an automation a user changes,
 * each optional (at least one); any other member is refused. `gbac` replaces the automation's gbac
 * whole, a list it leaves out being empty, as on creation.
 */
export const updateAutomationBodySchema = withId(
  'nap:schemas/update-automation-body',
  closed(
    {
      name: printableName('new name of the automation (unique)'),
      description: str(),
      componentType: nullable(str({ description: 'kind of component, for example workflows' })),
      componentName: nullable(str({ description: 'name of the workflow the automation runs' })),
      componentId: nullable(str({ description: 'id of the workflow the automation runs' })),
      gbac: closed(
        {
          read: arr(str(), { description: 'group ids that may read it' }),
          write: arr(str(), { description: 'group ids that may change it' }),
        },
        [],
        { description: 'group-based access: group ids allowed to read and to change the automation' },
      ),
    },
    [],
    { minProperties: 1 },
  ),
);
/** Body of `PATCH /operations-manager/automations/:id`. */
export type UpdateAutomationBody = Static<typeof updateAutomationBodySchema>;
