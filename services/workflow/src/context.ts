import { AppError, SYSTEM_CALLER, assertJsonDepth, declaredSecretPaths, hasCode, isAppError } from '@nap/contracts';
import type { Caller, StartJobWithOptionsBody, Trigger } from '@nap/contracts';
import type { BusClient, HandlerContext } from '@nap/bus';
import { errorMessage, isPlainObject } from '@nap/util';
import { assertMayRun, canSeeJob, visibilityFilter } from './domain/job-model';
import type { JobRecord } from './domain/job-model';
import { START_GROUPS_MEMBER, assertNoMisspelledOptions, startGroups } from './domain/start-options';
import type { ArchivedMetricSums } from './domain/archived-metrics';
import type { JobMetricsAccumulator } from './domain/job-metrics';
import { assertAutomationAccess, gbacGroupIds, mayAccessAutomation, toAutomationRecord } from './domain/automations';
import type { StoredAutomation } from './domain/automations';
import { asImported, newTriggerId, runsAsItsOwner, toPublicTrigger, toTriggerRecord } from './domain/trigger-model';
import type { TriggerRecord } from './domain/trigger-model';
import type { EventTriggers } from './engine/event-triggers';
import { storedTraceOf } from './engine/job-trace';
import type { JobEngine } from './engine/job-engine';
import type { TriggerStarter } from './engine/trigger-starter';
import type { JobArchiver } from './engine/job-archiver';
import type { WorkerControl } from './engine/worker-control';
import type { ArchiveBatchRepository } from './store/archive-batch-repository';
import type { ArchiveChunkRepository } from './store/archive-chunk-repository';
import type { JobArchiveRepository } from './store/job-archive-repository';
import type { AutomationRepository } from './store/automation-repository';
import type { JobRepository } from './store/job-repository';
import type { TriggerRepository } from './store/trigger-repository';

/** What every handler of the workflow service receives, as `svc`. */
export interface WorkflowContext {
  /** Job control: start, cancel, pause, resume, finish a manual task, retry a task. */
  engine: JobEngine;
  jobs: JobRepository;
  /** Automations of the operations manager and of the automation catalog. */
  automations: AutomationRepository;
  triggers: TriggerRepository;
  /** Starts a trigger's automation: schema check, JST, the job. */
  triggerStarter: TriggerStarter;
  /** Keeps the list of event triggers for a second: told when a trigger changes here. */
  eventTriggers: Pick<EventTriggers, 'invalidate'>;
  /** The platform-wide job and task worker switches. */
  workers: WorkerControl;
  /** For calls made as the platform rather than as the caller (the group directory, forms, transformations). */
  client: BusClient;
  /** Job archives: made on request, filled in batches by any replica. */
  archiver: Pick<JobArchiver, 'request'>;
  archives: JobArchiveRepository;
  archiveBatches: ArchiveBatchRepository;
  archiveChunks: ArchiveChunkRepository;
}

/** The job, when it exists and the caller may see it: 404 JOB_NOT_FOUND, 403 GROUP_ACCESS_DENIED otherwise. */
export async function visibleJob(svc: WorkflowContext, jobId: string, caller: Caller): Promise<JobRecord> {
  const job = await svc.jobs.findById(jobId);
  if (job === null) throw new AppError('JOB_NOT_FOUND', `No job with id "${jobId}"`);
  if (!canSeeJob(job, caller))
    throw new AppError('GROUP_ACCESS_DENIED', `Job "${jobId}" belongs to groups the caller "${caller.username}" is not in`);
  return job;
}

/** The jobs the metrics of `caller` are summed over: every job for an admin, the jobs they may see otherwise. */
export function metricsScope(caller: Caller): Record<string, unknown> {
  return visibilityFilter(caller) ?? {};
}

/** The most workflow names asked of the studio at once. */
const VISIBLE_WORKFLOWS_BATCH = 500;

/**
 * Of metrics rows, those of workflows the caller may see (the studio's group rule): all of them for
 * an admin; for anyone else, never the figures of another group's workflow, nor of a workflow that
 * no longer exists (its name may have been another group's).
 */
export async function ofVisibleWorkflows<T extends { workflow: string }>(ctx: HandlerContext, rows: T[]): Promise<T[]> {
  if (visibilityFilter(ctx.caller) === undefined) return rows;
  const names = [...new Set(rows.map((row) => row.workflow))];
  const visible = new Set<string>();
  for (let start = 0; start < names.length; start += VISIBLE_WORKFLOWS_BATCH) {
    const answer = await ctx.call('studio.visibleWorkflows', { body: { names: names.slice(start, start + VISIBLE_WORKFLOWS_BATCH) } });
    for (const name of answer.names) visible.add(name);
  }
  return rows.filter((row) => visible.has(row.workflow));
}

/**
 * Starts a job of the named workflow with the options of startJobWithOptions, as the caller;
 * answers the job as it started, as `view` makes it: a deep copy (the public job's JSON text), as
 * the engine goes on to change the job it drives.
 */
export async function startWithOptions<T>(
  svc: WorkflowContext,
  ctx: HandlerContext,
  workflowName: string,
  options: StartJobWithOptionsBody['options'],
  view: (job: JobRecord) => T,
): Promise<T> {
  assertNoMisspelledOptions(options);
  // the reply's bytes: parsed once per text (see WorkflowCache)
  const reply = await ctx.callRaw('studio.getWorkflow', { body: { name: workflowName } });
  const workflow = svc.engine.workflows.parse(workflowName, reply.data);
  assertMayRun(workflow, ctx.caller);
  const groups = startGroups(ctx.caller, options.groups);
  // a caller who is not an admin gives only groups it is in, which exist: only an admin's are looked up
  if (groups !== undefined && options.groups !== undefined && ctx.caller.roles.includes('admin'))
    await assertStartGroupsExist(svc, options.groups);
  // job variables are walked by the engine (references, templates, JSON queries) for the job's life
  assertJsonDepth(options.variables, 'options.variables');
  // the job's task calls belong to this request's trace, also once another engine drives the job
  const traceContext = storedTraceOf(ctx.trace);
  // the workflow is frozen and shared by the starts of the same reply: the job sets its own members only
  return svc.engine.startJobAs(
    {
      workflow,
      caller: ctx.caller,
      variablesMember: 'options.variables',
      ...(options.variables !== undefined ? { variables: options.variables } : {}),
      ...(options.description !== undefined ? { description: options.description } : {}),
      ...(options.type !== undefined ? { type: options.type } : {}),
      ...(groups !== undefined ? { groups } : {}),
      ...(options.pinned !== undefined ? { pinned: options.pinned } : {}),
      ...(traceContext !== undefined ? { traceContext } : {}),
    },
    (job) => {
      // the audit trail records the job started (not the route's workflow), without reading it back from the answer
      ctx.audit({ target: { kind: 'job', id: job._id, name: job.name } });
      return view(job);
    },
  );
}

/**
 * `record` with the members of its formData that its form declares secret (`secretPaths`), read
 * from the form now (forms change): sealed and masked by the trigger repository. A form that cannot
 * be read leaves those of `existing` (an update), or none.
 */
export async function withFormSecrets(
  svc: WorkflowContext,
  record: TriggerRecord,
  caller: Caller,
  existing?: TriggerRecord,
): Promise<TriggerRecord> {
  const { secretPaths: _given, ...rest } = record;
  if (typeof rest.formId !== 'string' || rest.formId === '') return rest;
  let paths = existing?.secretPaths ?? [];
  try {
    paths = declaredSecretPaths((await svc.client.call('studio.getForm', { params: { id: rest.formId } }, { caller })).body.schema);
  } catch (err) {
    if (!hasCode(err, 'FORM_NOT_FOUND')) throw err;
  }
  return paths.length > 0 ? { ...rest, secretPaths: paths } : rest;
}

/**
 * Stores a new trigger checked by the trigger model (`member` names the submitted value in errors);
 * an import keeps the submitted `_id`. The automation it starts must exist.
 */
export async function saveTrigger(
  svc: WorkflowContext,
  input: Record<string, unknown>,
  member: string,
  caller: Caller,
  keepId: boolean,
): Promise<TriggerRecord> {
  const record = await withFormSecrets(svc, toTriggerRecord(input, member, caller, Date.now(), { newId: newTriggerId, keepId }), caller);
  await svc.automations.accessibleAutomation(record.actionId, caller, 'write');
  if (runsAsItsOwner(record)) await svc.triggerStarter.assertMayStart(record, caller);
  const stored = await svc.triggers.insert(record);
  svc.eventTriggers.invalidate();
  return stored;
}

/**
 * Stores a new automation of the operations manager with the triggers its `triggers` member holds
 * (an exported automation carries them): every trigger is checked first (`member` names the
 * submitted automation in errors, for example `body.automations[0].triggers[1].routeName`) and
 * started by this automation whatever `actionId` it names; the automation is stored, then its
 * triggers. A trigger refused by the store (an id or route name in use) takes the automation and
 * the triggers stored before it away again: an automation is imported with all its triggers or not
 * at all. An import (`keepId`) keeps the submitted ids, and takes in an event trigger on an event
 * this platform does not publish disabled (see {@link asImported}); `notes` says which.
 */
export async function saveAutomation(
  svc: WorkflowContext,
  input: Record<string, unknown>,
  member: string,
  caller: Caller,
  keepId: boolean,
): Promise<{ automation: StoredAutomation & { triggers: Trigger[] }; notes: string[] }> {
  const { triggers: submitted, ...rest } = input;
  if (submitted !== undefined && (!Array.isArray(submitted) || !submitted.every(isPlainObject)))
    throw new AppError('VALIDATION_FAILED', `${member}.triggers must be an array of triggers`, {
      details: [{ member: `${member}.triggers`, message: 'must be an array of trigger objects' }],
    });
  const now = Date.now();
  const automation = toAutomationRecord(rest, caller, now, keepId, member);
  await assertGroupsExist(svc, gbacGroupIds(automation), `${member}.gbac`);
  const notes: string[] = [];
  const triggers = (submitted ?? []).map((t, i) => {
    const { trigger, note } = keepId ? asImported(t) : { trigger: t, note: undefined };
    if (note !== undefined) notes.push(note);
    return toTriggerRecord({ ...trigger, actionId: automation._id }, `${member}.triggers[${i}]`, caller, now, {
      newId: newTriggerId,
      keepId,
    });
  });
  const ids = new Set<string>();
  triggers.forEach((t, i) => {
    if (ids.has(t._id))
      throw new AppError('VALIDATION_FAILED', `${member}.triggers[${i}]._id "${t._id}" is given to two triggers`, {
        details: [{ member: `${member}.triggers[${i}]._id`, message: 'is the id of an earlier trigger of this automation' }],
      });
    ids.add(t._id);
  });
  const stored = await svc.automations.insertAutomation(automation, (existing) => mayAccessAutomation(existing, caller, 'read'));
  if (triggers.length === 0) return { automation: { ...stored, triggers: [] }, notes };
  const kept: Trigger[] = [];
  try {
    for (const trigger of triggers) kept.push(toPublicTrigger(await svc.triggers.insert(await withFormSecrets(svc, trigger, caller))));
  } catch (err) {
    try {
      await svc.triggers.deleteByAction(stored._id);
      await svc.automations.deleteAutomation(stored._id);
    } catch (undo) {
      // the caller must learn that something of it stayed, and what to do about it
      throw new AppError(
        isAppError(undo) ? undo.code : 'INTERNAL',
        `Automation "${stored.name}" was stored but not all its triggers (${errorMessage(err)}), and taking it away again failed ` +
          `(${errorMessage(undo)}): delete it (DELETE /operations-manager/automations/${stored._id}) before importing it again`,
        { cause: err },
      );
    }
    throw err;
  } finally {
    svc.eventTriggers.invalidate();
  }
  return { automation: { ...stored, triggers: kept }, notes };
}

/** Groups asked of the group directory at once: the most a page of it holds. */
const GROUP_PAGE = 500;

/**
 * Of `ids`, those that name no group of the platform, as the group directory (the admin service)
 * lists them, read as the platform: page after page until every id is found or the list ends.
 */
async function missingGroupIds(svc: WorkflowContext, ids: readonly string[]): Promise<Set<string>> {
  const missing = new Set(ids);
  for (let skip = 0; missing.size > 0;) {
    const { results, total } = (await svc.client.call('admin.getGroups', { query: { skip, limit: GROUP_PAGE } }, { caller: SYSTEM_CALLER }))
      .body;
    for (const { _id } of results) if (_id !== undefined) missing.delete(_id);
    skip += results.length;
    if (results.length === 0 || (total !== undefined && skip >= total)) break;
  }
  return missing;
}

/**
 * Refuses group ids that name no group (404 GROUP_NOT_FOUND naming the first, as the catalog import
 * refuses a group that does not exist): such a gbac would shut everyone but admins out for good.
 */
export async function assertGroupsExist(svc: WorkflowContext, ids: string[], member: string): Promise<void> {
  if (ids.length === 0) return;
  const unknown = await missingGroupIds(svc, ids);
  const missing = ids.filter((id) => unknown.has(id));
  if (missing.length > 0)
    throw new AppError(
      'GROUP_NOT_FOUND',
      `${member} names ${missing.map((id) => `"${id}"`).join(', ')}, which ${missing.length === 1 ? 'is no group' : 'are no groups'} of this platform; create ${missing.length === 1 ? 'it' : 'them'} first or use a group id`,
      { details: [{ member, message: `names groups that do not exist: ${missing.join(', ')}` }] },
    );
}

/**
 * Refuses a start's `options.groups` that names a group that does not exist (400 VALIDATION_FAILED,
 * one detail per such member, `body.options.groups[2]`): a job shared only with groups nobody is in
 * would be seen by admins and its starter alone, which is never what the start meant.
 */
async function assertStartGroupsExist(svc: WorkflowContext, given: readonly string[]): Promise<void> {
  if (given.length === 0) return;
  const unknown = await missingGroupIds(svc, given);
  const missing = given.flatMap((id, i) => (unknown.has(id) ? [{ id, member: `${START_GROUPS_MEMBER}[${i}]` }] : []));
  if (missing.length > 0)
    throw new AppError(
      'VALIDATION_FAILED',
      `${missing.map(({ id, member }) => `${member} "${id}"`).join(', ')} ${missing.length === 1 ? 'is no group' : 'are no groups'} of this platform; give the ids of groups that exist, or leave groups out for the workflow's`,
      { details: missing.map(({ id, member }) => ({ member, message: `"${id}" is no group of this platform` })) },
    );
}

/**
 * The trigger with this id when the caller may read (`read`) or change (`write`) its automation
 * (the automation's gbac): 404 TRIGGER_NOT_FOUND, 403 GROUP_ACCESS_DENIED.
 */
export async function accessibleTrigger(svc: WorkflowContext, id: string, caller: Caller, mode: 'read' | 'write'): Promise<TriggerRecord> {
  const trigger = await svc.triggers.get(id);
  const automation = await svc.automations.findAutomation(trigger.actionId);
  if (automation !== null) assertAutomationAccess(automation, caller, mode);
  return trigger;
}

/** Deletes every trigger of an automation; answers how many. */
export async function deleteTriggersOf(svc: WorkflowContext, actionId: string): Promise<number> {
  const deleted = await svc.triggers.deleteByAction(actionId);
  svc.eventTriggers.invalidate();
  return deleted;
}

/** Starts the automation of a trigger run on request (endpoint, manual) as the caller, in the request's trace: the job it started. */
export async function startFromTrigger(
  svc: WorkflowContext,
  trigger: TriggerRecord,
  variables: Record<string, unknown>,
  ctx: Pick<HandlerContext, 'caller' | 'trace'>,
  declared?: string[][],
): Promise<JobRecord> {
  const traceContext = storedTraceOf(ctx.trace);
  const job = await svc.triggerStarter.start(trigger, variables, ctx.caller, undefined, {
    ...(declared !== undefined ? { declared } : {}),
    ...(traceContext !== undefined ? { traceContext } : {}),
  });
  if (job === undefined) throw new AppError('INTERNAL', `Trigger "${trigger.name}" started no job`);
  return job;
}

/**
 * Adds what archived jobs left behind to job and task metrics: jobs moved into an archive keep
 * counting. `visible` keeps the sums of jobs a caller may see (each entry carries the groups,
 * initiator and owner of its jobs); all of them unless given.
 */
export async function addArchivedMetrics(
  svc: WorkflowContext,
  sums: JobMetricsAccumulator,
  visible: (entry: ArchivedMetricSums) => boolean = () => true,
): Promise<void> {
  for (const entry of await svc.archiveBatches.doneSumsMerged()) if (visible(entry)) sums.addSums(entry);
}
