import type { ServiceName } from '../services';
import { SERVICE_NAMES } from '../services';
import { rpcSubject } from '../subjects';
import { BODY_LIMITS } from './types';
import type { OperationDef } from './types';
import type { TypesOfOperation } from './define';
import { ADMIN_OPERATIONS } from './admin';
import { GATEWAY_DEVICES_OPERATIONS } from './gateway-devices';
import { MOP_OPERATIONS } from './mop';
import { ORCH_PROXY_OPERATIONS } from './orch-proxy';
import { STUDIO_OPERATIONS } from './studio';
import { WORKFLOW_OPERATIONS } from './workflow';

export { TIMEOUTS_MS, pathParams } from './define';
export type { OperationSpec, OperationTypes, PathParamNames, TypedOperation, TypesOfOperation } from './define';
export { ADMIN_OPERATIONS, GATEWAY_DEVICES_OPERATIONS, MOP_OPERATIONS, ORCH_PROXY_OPERATIONS, STUDIO_OPERATIONS, WORKFLOW_OPERATIONS };
export { TAG_REFERENCE_TYPES, tagReferenceSchema, tagSchema } from './studio';
export type { Tag, TagReference, TagReferenceType } from './studio';

/** Every operation of the platform keyed by id; its type carries each operation's request and answer types. */
export const OPERATIONS = Object.freeze({
  ...WORKFLOW_OPERATIONS,
  ...MOP_OPERATIONS,
  ...GATEWAY_DEVICES_OPERATIONS,
  ...ORCH_PROXY_OPERATIONS,
  ...ADMIN_OPERATIONS,
  ...STUDIO_OPERATIONS,
});

/** The operations of the platform by id, as the compiler sees them. */
export type Operations = typeof OPERATIONS;
/** The id of a catalog operation, `<service>.<name>`. */
export type OperationId = keyof Operations & string;
/** The ids of the operations `S` serves. */
export type OperationIdOf<S extends ServiceName> = Extract<OperationId, `${S}.${string}`>;
/** The operation name of an id (`mop.createTemplate` → `createTemplate`). */
export type OperationNameOf<Id extends string> = Id extends `${string}.${infer Name}` ? Name : never;
/** The names of the operations `S` serves (the keys of its handler map). */
export type OperationNamesOf<S extends ServiceName> = OperationNameOf<OperationIdOf<S>>;
/** The id of the operation named `N` of service `S`. */
export type OperationIdFor<S extends ServiceName, N extends string> = Extract<OperationIdOf<S>, `${S}.${N}`>;
/** Path parameters of an operation, after validation. */
export type ParamsOf<Id extends OperationId> = TypesOfOperation<Operations[Id]>['params'];
/** Query members of an operation, after validation (coerced, defaults filled in). */
export type QueryOf<Id extends OperationId> = TypesOfOperation<Operations[Id]>['query'];
/** The request body of an operation (`undefined` when it has none). */
export type BodyOf<Id extends OperationId> = TypesOfOperation<Operations[Id]>['body'];
/** The success body of an operation. */
export type ResponseOf<Id extends OperationId> = TypesOfOperation<Operations[Id]>['response'];

/** Every operation of the platform, HTTP and bus-only, grouped by service in {@link SERVICE_NAMES} order. */
export const CATALOG: readonly OperationDef[] = Object.freeze(Object.values<OperationDef>(OPERATIONS));

/**
 * Ids of the operations this platform adds beyond the spec: authentication, the job envelope,
 * job control and its event streams, triggers, automations and the engine's operator routes, the
 * routes the platform's existing clients call by their own names (tasks, workers, metrics, projects,
 * /authorization, /health/status), studio reads and deletion, template run history, device template
 * management, and the bus-only helpers of authentication and the workflow engine. Every one has
 * `addition: true`; every HTTP route of the catalog that the spec does not name is here.
 */
export const SPEC_ADDITIONS: readonly string[] = Object.freeze([
  'admin.login',
  'admin.oauthToken',
  'admin.getSsoMethods',
  'admin.ssoLogin',
  'admin.ssoCallback',
  'admin.samlAcs',
  'admin.getSamlMetadata',
  'admin.whoami',
  'admin.mySession',
  'admin.logout',
  'admin.changeMyPassword',
  'admin.unlockAccount',
  'admin.getAccountSessions',
  'admin.endAccountSessions',
  'admin.endAccountSession',
  'admin.authenticate',
  'admin.resolveSession',
  'admin.getTokenKeys',
  'admin.getHealthStatus',
  'admin.getAuthorizationAccounts',
  'admin.getAuthorizationAccount',
  'admin.getAuthorizationGroups',
  'admin.getAuthorizationGroup',
  'admin.createAuthorizationGroup',
  'admin.deleteAuthorizationGroup',
  'admin.setGroupAssignedRoles',
  'admin.getRoles',
  'admin.getRole',
  'admin.createRole',
  'admin.updateRole',
  'admin.deleteRole',
  'admin.getMethods',
  'admin.getViews',
  'admin.getUserSettings',
  'admin.callAdapter',
  'admin.runTask',
  'admin.getAudit',
  'admin.getAuditRecord',
  'admin.verifyAudit',
  'admin.exportAudit',
  'workflow.getJob',
  'workflow.finishTask',
  'workflow.cancelJobs',
  'workflow.pauseJob',
  'workflow.resumeJob',
  'workflow.watchJobEvents',
  'workflow.startJob',
  'workflow.getTasks',
  'workflow.archiveJobs',
  'workflow.getJobArchives',
  'workflow.getJobArchive',
  'workflow.deleteJobArchive',
  'workflow.getAutomations',
  'workflow.getAutomation',
  'workflow.exportAutomation',
  'workflow.updateAutomation',
  'workflow.deleteAutomation',
  'workflow.getTriggers',
  'workflow.createTrigger',
  'workflow.importTriggers',
  'workflow.getTrigger',
  'workflow.updateTrigger',
  'workflow.deleteTrigger',
  'workflow.exportTrigger',
  'workflow.deleteTriggersByAction',
  'workflow.runEndpointTrigger',
  'workflow.runManualTrigger',
  'workflow.getWorkersStatus',
  'workflow.activateTaskWorker',
  'workflow.deactivateTaskWorker',
  'workflow.activateJobWorker',
  'workflow.deactivateJobWorker',
  'workflow.getJobMetrics',
  'workflow.getTaskMetrics',
  'workflow.watchEvents',
  'workflow.jobAudiences',
  'studio.getAutomations',
  'studio.getAutomation',
  'studio.deleteAutomation',
  'studio.getWorkflow',
  'studio.visibleWorkflows',
  'studio.renderJinjaTemplate',
  'studio.parseTemplate',
  'studio.renderJinjaText',
  'studio.createForm',
  'studio.importForms',
  'studio.getForms',
  'studio.getForm',
  'studio.updateForm',
  'studio.deleteForm',
  'studio.getWorkflows',
  'studio.getProjects',
  'studio.getProject',
  'studio.updateProject',
  'studio.deleteProject',
  'studio.importProject',
  'studio.exportProject',
  'studio.createProject',
  'studio.addProjectComponents',
  'studio.removeProjectComponent',
  'studio.createTransformation',
  'studio.getTransformations',
  'studio.getTransformation',
  'studio.updateTransformation',
  'studio.deleteTransformation',
  'studio.importTransformations',
  'studio.validateTransformation',
  'studio.runTransformationById',
  'studio.importTransformation',
  'studio.deleteWorkflowByName',
  'studio.exportWorkflow',
  'studio.getJsonForms',
  'studio.getJsonForm',
  'studio.createJsonForm',
  'studio.deleteJsonForms',
  'studio.importJsonForms',
  'studio.getTags',
  'studio.getTag',
  'studio.createTag',
  'studio.updateTag',
  'studio.deleteTag',
  'studio.getTagsByReference',
  'studio.createTagReference',
  'studio.getTagReferences',
  'studio.handleTagReferences',
  'mop.getTemplateRuns',
  'mop.getTemplateRun',
  'mop.updateTemplateByName',
  'gateway-devices.createDeviceTemplate',
  'gateway-devices.getDeviceTemplate',
  'gateway-devices.updateDeviceTemplate',
  'gateway-devices.deleteDeviceTemplate',
  'gateway-devices.renderDeviceTemplate',
  'gateway-devices.getConfigBackups',
  'gateway-devices.getKnownHosts',
  'gateway-devices.trustHostKey',
  'gateway-devices.forgetHostKey',
]);

const BY_ID: ReadonlyMap<string, OperationDef> = new Map(CATALOG.map((op) => [op.id, op]));

/** The operation with this id (`<service>.<name>`). Throws an `Error` naming the id when there is none. */
export function getOperation<Id extends OperationId>(id: Id): Operations[Id];
export function getOperation(id: string): OperationDef;
export function getOperation(id: string): OperationDef {
  const op = BY_ID.get(id);
  if (op === undefined) throw new Error(`Unknown operation "${id}": no catalog entry has this id (ids are <service>.<name>)`);
  return op;
}

/** True when the catalog has an operation with this id. */
export function hasOperation(id: string): id is OperationId {
  return BY_ID.has(id);
}

/** The operations a service owns and serves, in catalog order. */
export function operationsOf(service: ServiceName): readonly OperationDef[] {
  return CATALOG.filter((op) => op.service === service);
}

/**
 * The bus subject of an operation, `nap.rpc.<service>.<name>`. Given an id, the operation must
 * exist (throws otherwise), so a typo never becomes a subject nobody serves.
 */
export function subjectOf(idOrDef: string | Pick<OperationDef, 'service' | 'name'>): string {
  const op = typeof idOrDef === 'string' ? getOperation(idOrDef) : idOrDef;
  const key = `${op.service}.${op.name}`;
  let subject = SUBJECTS.get(key);
  if (subject === undefined) {
    subject = rpcSubject(op.service, op.name);
    SUBJECTS.set(key, subject);
  }
  return subject;
}

/** Subjects by operation id: built once, looked up on every request. */
const SUBJECTS = new Map<string, string>();

function rolesCell(op: OperationDef): string {
  if (op.auth === 'public') return 'public';
  if (op.auth === 'caller') return 'any signed-in caller';
  return op.roles.join(', ');
}

function kindCell(op: OperationDef): string {
  if (op.http === undefined) return op.addition === true ? 'bus-only, addition' : 'bus-only';
  return op.addition === true ? 'addition' : 'spec';
}

/**
 * `docs/catalog.md`: a table of every operation (id, method, route, roles, timeout, kind) per
 * service. A test keeps the file equal to this output.
 */
export function renderCatalogMarkdown(): string {
  const lines: string[] = [
    '# Operation catalog',
    '',
    '<!-- Generated from contracts/src/catalog by renderCatalogMarkdown(); do not edit by hand.',
    '     Update: UPDATE_DOCS=1 npx jest contracts/test/catalog-docs -->',
    '',
    'Every operation of the platform. The bus subject of an operation is `nap.rpc.<service>.<name>`;',
    'kind `spec` is a route of the HTTP interface, `addition` a route this platform adds, `bus-only` an',
    'operation with no HTTP route. Roles `public` need no credentials. Timeouts are in milliseconds.',
    '',
  ];
  const http = CATALOG.filter((op) => op.http !== undefined);
  lines.push(
    `${CATALOG.length} operations: ${http.filter((op) => op.addition !== true).length} spec routes, ` +
      `${http.filter((op) => op.addition === true).length} added routes, ${CATALOG.length - http.length} bus-only.`,
    '',
  );
  const larger = http.filter((op) => op.bodyLimit === 'document');
  lines.push(
    `Request bodies are limited to ${BODY_LIMITS.default.bytes} bytes (\`${BODY_LIMITS.default.env}\`), but for the operations that take ` +
      `whole documents (\`${BODY_LIMITS.document.env}\`, ${BODY_LIMITS.document.bytes} bytes by default): ` +
      `${larger.map((op) => op.id).join(', ')}. Either may be set from 1024 bytes up to 64 MiB.`,
    '',
  );
  for (const service of SERVICE_NAMES) {
    const ops = operationsOf(service);
    lines.push(`## ${service}`, '', '| id | method | route | roles | timeout | kind |', '|---|---|---|---|---|---|');
    for (const op of ops) {
      const method = op.http?.method ?? '';
      const route = op.http === undefined ? '' : `\`${op.http.path}\``;
      lines.push(`| ${op.id} | ${method} | ${route} | ${rolesCell(op)} | ${op.timeoutMs} | ${kindCell(op)} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
