import { AppError, SYSTEM_CALLER, declaredSecretPaths, hasCode } from '@nap/contracts';
import type { Caller, WorkflowDocument } from '@nap/contracts';
import type { AuditRecorder, BusClient } from '@nap/bus';
import type { Logger } from '@nap/telemetry';
import { isRecord } from '@nap/util';
import { assertAutomationAccess } from '../domain/automations';
import type { StoredAutomation } from '../domain/automations';
import { assertMayRun } from '../domain/job-model';
import type { JobRecord, JobTraceContext } from '../domain/job-model';
import type { JobEngine } from './job-engine';
import { UserSchemas } from './input-schemas';
import type { AutomationRepository } from '../store/automation-repository';
import { transformationIdOf } from '../domain/trigger-model';
import type { TriggerRecord } from '../domain/trigger-model';
import type { TriggerRepository } from '../store/trigger-repository';

/** What starting an automation from a trigger needs. */
export interface TriggerStarterDeps {
  engine: JobEngine;
  automations: AutomationRepository;
  triggers: TriggerRepository;
  client: BusClient;
  log: Logger;
  /** Where the jobs that schedules and event triggers start are recorded (the platform acting on its own). */
  audit: AuditRecorder;
}

/**
 * Starts the automation a trigger points at: the body (form data, event payload) is checked against
 * the trigger's schema, transformed by its JST when it has one (`studio.runTransformation`), and
 * becomes the variables of a job of the automation's workflow, started as the given caller.
 */
export class TriggerStarter {
  private readonly schemas: UserSchemas;

  constructor(private readonly deps: TriggerStarterDeps) {
    this.schemas = new UserSchemas(deps.engine.schemaThread);
  }

  /**
   * Checks `body` against the trigger's schema: 400 VALIDATION_FAILED naming each member
   * (`body.device`); answers the body with the defaults of the schema filled in.
   */
  checkBody(trigger: TriggerRecord, body: unknown, label = 'body'): Promise<unknown> {
    return this.checkSchema(`trigger ${trigger._id}@${trigger.lastUpdated}`, `trigger "${trigger.name}"`, trigger.schema, body, label);
  }

  /**
   * Checks `value` against a user's JSON Schema kept under `key` (its version): 400 VALIDATION_FAILED
   * naming each member; 422 UNPROCESSABLE when the schema is not usable or its check overran the time
   * limit (a pattern that backtracks). Answers the value with the defaults of the schema filled in.
   */
  async checkSchema(key: string, owner: string, schema: unknown, value: unknown, label: string): Promise<unknown> {
    if (!isRecord(schema) || Object.keys(schema).length === 0) return value;
    const checked = await this.schemas.problems(
      key,
      schema,
      value,
      label,
      (message) => new AppError('UNPROCESSABLE', `The schema of ${owner} is not a usable JSON Schema: ${message}`),
    );
    const { problems } = checked;
    if (problems.length > 0) throw new AppError('VALIDATION_FAILED', problems.map((p) => p.message).join('; '), { details: problems });
    return checked.value;
  }

  /** The job variables made from a body: the JST's outgoing values when the trigger has one, the body itself otherwise. */
  async variablesOf(trigger: TriggerRecord, body: unknown, caller: Caller): Promise<Record<string, unknown>> {
    const transformationId = transformationIdOf(trigger.jst);
    if (transformationId === undefined) {
      if (body === undefined || body === null) return {};
      if (!isRecord(body))
        throw new AppError(
          'VALIDATION_FAILED',
          `body must be an object: its members become the job variables (trigger "${trigger.name}" has no jst to transform it)`,
          { details: [{ member: 'body', message: 'must be an object' }] },
        );
      return body;
    }
    const incoming = isRecord(body) ? body : {};
    const outgoing = (
      await this.deps.client.call('studio.runTransformation', { params: { transformationId }, body: { incoming } }, { caller })
    ).body;
    if (!isRecord(outgoing)) {
      throw new AppError(
        'UNPROCESSABLE',
        `The jst of trigger "${trigger.name}" (transformation "${transformationId}") answered ${Array.isArray(outgoing) ? 'an array' : typeof outgoing}; its outgoing values become the job variables, so it must answer an object`,
      );
    }
    return outgoing;
  }

  /**
   * Records in the audit trail that the platform (`schedule`, or `trigger` for an event trigger)
   * started the job `jobId` of a trigger, or failed to (`error`), on behalf of the trigger's creator.
   * The job id is the occasion's (a due time, an event's position), so a due time fired again after
   * a crash is recorded once. Resolves once durable; a failure is retryable (the occasion is fired again).
   */
  async recordStart(actor: 'schedule' | 'trigger', trigger: TriggerRecord, caller: Caller, jobId: string, error?: unknown): Promise<void> {
    const outcome =
      error === undefined
        ? { status: 200 }
        : { status: error instanceof AppError ? error.status : 500, code: error instanceof AppError ? error.code : 'INTERNAL' };
    if (error !== undefined)
      await this.deps.triggers.markFailed(trigger._id, {
        at: Date.now(),
        code: error instanceof AppError ? error.code : 'INTERNAL',
        message: error instanceof AppError ? error.message : 'The trigger could not start its automation: see the service log',
      });
    await this.deps.audit.recordPlatformAction({
      actor,
      onBehalfOf: caller,
      operation: actor === 'schedule' ? 'workflow.runSchedule' : 'workflow.runEventTrigger',
      occasion: jobId,
      target: { kind: 'job', id: jobId, name: trigger.name },
      outcome,
    });
  }

  /**
   * Refuses (422 UNPROCESSABLE) to act for an account that was deleted or made inactive since the
   * trigger took its identity: removing a person removes what their triggers do. Asked of the admin
   * service at each start (a start costs far more); the platform's own caller is always there.
   */
  private async assertIdentity(trigger: TriggerRecord, caller: Caller): Promise<void> {
    if (caller.id === SYSTEM_CALLER.id) return;
    let gone: string | null;
    try {
      const account = (await this.deps.client.call('admin.getAccount', { params: { accountId: caller.id } }, { caller: SYSTEM_CALLER }))
        .body;
      gone = account.inactive === true ? 'was made inactive' : null;
    } catch (err) {
      if (!hasCode(err, 'ACCOUNT_NOT_FOUND')) throw err;
      gone = 'was deleted';
    }
    if (gone !== null)
      throw new AppError(
        'UNPROCESSABLE',
        `Trigger "${trigger.name}" runs as "${caller.username}", whose account ${gone}: it starts nothing until someone changes it (it then runs as them) or deletes it`,
      );
  }

  /**
   * Refuses (403 GROUP_ACCESS_DENIED) a schedule or event trigger that would run, as `caller`, a
   * workflow shared with groups `caller` is not in: checked when such a trigger is created or
   * changed, as it then runs as that caller. A workflow that does not exist yet is left to the run.
   */
  async assertMayStart(trigger: TriggerRecord, caller: Caller): Promise<void> {
    let workflow: WorkflowDocument;
    try {
      workflow = await this.workflowOf(trigger, caller);
    } catch (err) {
      if (hasCode(err, 'GROUP_ACCESS_DENIED')) throw err;
      return;
    }
    assertMayRun(workflow, caller);
  }

  /**
   * Refuses (403 GROUP_ACCESS_DENIED) a change by `caller` that points `automation` at a workflow
   * shared with groups `caller` is not in: its schedules and event triggers run as whoever last
   * changed them, not as `caller`, so they would run what `caller` may not. A workflow that does not
   * exist yet (or a component that is no workflow) is left to the run, as {@link assertMayStart} leaves it.
   */
  async assertMayRepoint(automation: StoredAutomation, caller: Caller): Promise<void> {
    let workflow: WorkflowDocument;
    try {
      workflow = await this.workflowOfAutomation(automation, caller);
    } catch (err) {
      if (hasCode(err, 'GROUP_ACCESS_DENIED')) throw err;
      return;
    }
    assertMayRun(workflow, caller);
  }

  /** The workflow of the trigger's automation, read as `caller`. */
  private async workflowOf(trigger: TriggerRecord, caller: Caller): Promise<WorkflowDocument> {
    const automation = await this.deps.automations.findAutomation(trigger.actionId);
    if (automation === null)
      throw new AppError(
        'AUTOMATION_NOT_FOUND',
        `Trigger "${trigger.name}" starts the automation "${trigger.actionId}", which does not exist`,
      );
    return this.workflowOfAutomation(automation, caller);
  }

  /**
   * The variables the trigger declares secret (`format: "password"`, `writeOnly`): by its form (a
   * manual trigger's, a schedule's: read from the form when the trigger was stored, `secretPaths`)
   * or by its schema when its body becomes the variables as it is (an endpoint or event trigger
   * without a JST).
   */
  private declaredSecretsOf(trigger: TriggerRecord): string[][] {
    if (typeof trigger.formId === 'string' && trigger.formId !== '') return trigger.secretPaths ?? [];
    return transformationIdOf(trigger.jst) === undefined ? declaredSecretPaths(trigger.schema) : [];
  }

  /** The workflow `automation` names, read as `caller`. */
  private async workflowOfAutomation(automation: StoredAutomation, caller: Caller): Promise<WorkflowDocument> {
    // an automation shared with groups is run only by those who may see it (its gbac)
    assertAutomationAccess(automation, caller, 'read');
    if (automation.componentType !== null && automation.componentType !== undefined && automation.componentType !== 'workflows') {
      throw new AppError(
        'UNPROCESSABLE',
        `Automation "${automation.name}" runs a ${automation.componentType}; triggers start workflows only`,
      );
    }
    const ref = automation.componentId ?? automation.componentName ?? null;
    if (ref === null || ref === '')
      throw new AppError(
        'UNPROCESSABLE',
        `Automation "${automation.name}" names no workflow (componentName or componentId); set one to run it`,
      );
    const body = automation.componentId ? { id: automation.componentId } : { name: String(automation.componentName) };
    return (await this.deps.client.call('studio.getWorkflow', { body }, { caller })).body;
  }

  /**
   * Starts a job of the trigger's automation with `variables`, as `caller`; the job names the
   * trigger. With an occasion's `jobId` (a schedule's due time `due`, an event's position) a second
   * start of the same occasion creates nothing and answers undefined; an event's occasion carries the
   * chain of event triggers that led to the job (see JobRecord.triggerChain). A run on request
   * (endpoint, manual) gives what its form `declared` secret and its request's `traceContext`.
   */
  async start(
    trigger: TriggerRecord,
    variables: Record<string, unknown>,
    caller: Caller,
    occasion?: { jobId: string; due?: number; triggerChain?: string[] },
    request?: { declared?: string[][]; traceContext?: JobTraceContext },
  ): Promise<JobRecord | undefined> {
    const jobId = occasion?.jobId;
    // a trigger acting on its own (schedule, event) acts for an account that must still be there
    if (occasion !== undefined) await this.assertIdentity(trigger, caller);
    const workflow = await this.workflowOf(trigger, caller);
    assertMayRun(workflow, caller);
    const secretPaths = request?.declared ?? this.declaredSecretsOf(trigger);
    let job: JobRecord;
    try {
      job = await this.deps.engine.startJob({
        workflow,
        variables,
        caller,
        description: trigger.description || workflow.description || '',
        trigger: {
          _id: trigger._id,
          name: trigger.name,
          type: trigger.type,
          automationId: trigger.actionId,
          ...(occasion?.due !== undefined ? { due: occasion.due } : {}),
        },
        ...(jobId !== undefined ? { jobId } : {}),
        ...(occasion?.triggerChain !== undefined ? { triggerChain: occasion.triggerChain } : {}),
        ...(secretPaths.length > 0 ? { secretPaths } : {}),
        // a run on request stays in its request's trace (a schedule's or an event's job gets its own)
        ...(request?.traceContext !== undefined ? { traceContext: request.traceContext } : {}),
      });
    } catch (err) {
      if (jobId !== undefined && hasCode(err, 'STORE_DUPLICATE_KEY')) return undefined;
      throw err;
    }
    await this.deps.triggers
      .markExecuted(trigger._id, Date.now())
      .catch((err: unknown) => this.deps.log.warn({ err, triggerId: trigger._id }, 'Recording when a trigger ran failed'));
    return job;
  }
}
