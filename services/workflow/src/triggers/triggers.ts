import { AppError, isAppError } from '@nap/contracts';
import type { Caller, ImportResult, ImportResultItem, QueryOf, Trigger } from '@nap/contracts';
import type { BusClient } from '@nap/bus';
import { toListQuery } from '@nap/store';
import type { Filter, ListFields } from '@nap/store';
import { isRecord } from '@nap/util';
import type { JobRecord } from '../domain/job-model';
import type { AutomationRepository } from '../store/automation-repository';
import type { EventTriggers } from '../engine/event-triggers';
import { newTriggerId, toExportedTrigger, toPublicTrigger, toTriggerRecord, unwrapTrigger } from '../domain/trigger-model';
import type { TriggerRecord } from '../domain/trigger-model';
import type { TriggerRepository } from '../store/trigger-repository';
import type { TriggerStarter } from '../engine/trigger-starter';

/** What the trigger list filters and sorts on. */
export const TRIGGER_LIST_FIELDS: ListFields = {
  filter: ['name', '_id', 'description', 'type', 'actionId', 'routeName', 'topic', 'formId', 'createdBy'],
  sort: ['name', '_id', 'type', 'created', 'lastUpdated'],
  defaultSort: { name: 1, _id: 1 },
};

/**
 * The operations manager's triggers: records kept by {@link TriggerRepository}, checked by the
 * trigger model, run through {@link TriggerStarter}. Endpoint and manual triggers run on request,
 * as the caller; schedules and event triggers fire on their own (ScheduleRunner, EventTriggers).
 */
export class Triggers {
  constructor(
    private readonly repo: TriggerRepository,
    private readonly automations: AutomationRepository,
    private readonly starter: TriggerStarter,
    private readonly client: BusClient,
    private readonly events?: EventTriggers,
  ) {}

  async list(query: QueryOf<'workflow.getTriggers'>): Promise<{ items: Trigger[]; total: number; skip: number; limit: number }> {
    const extra: Filter[] = [];
    if (query.enabled !== undefined) extra.push({ enabled: query.enabled });
    if (query.actionId !== undefined) extra.push({ actionId: { $eq: query.actionId } });
    const list = toListQuery(query, TRIGGER_LIST_FIELDS, extra);
    const { items, total } = await this.repo.page(list);
    return { items: items.map(toPublicTrigger), total, skip: list.skip, limit: list.limit };
  }

  async get(id: string): Promise<Trigger> {
    return toPublicTrigger(await this.repo.get(id));
  }

  async exportOne(id: string): Promise<Trigger> {
    return toExportedTrigger(await this.repo.get(id));
  }

  async create(body: Record<string, unknown>, caller: Caller): Promise<Trigger> {
    const { input, member } = unwrapTrigger(body);
    return toPublicTrigger(await this.save(input, member, caller, false));
  }

  async import(items: Record<string, unknown>[], caller: Caller): Promise<ImportResult<Record<string, unknown>, Trigger>> {
    const imported: ImportResultItem<Record<string, unknown>, Trigger>[] = [];
    for (const [i, item] of items.entries()) {
      try {
        const created = toPublicTrigger(await this.save(item, `body.triggers[${i}]`, caller, true));
        imported.push({ success: true, message: `Trigger "${created.name}" imported`, original: item, created });
      } catch (err) {
        if (!isAppError(err)) throw err;
        imported.push({ success: false, message: err.message, original: item, created: null });
      }
    }
    const ok = imported.filter((r) => r.success).length;
    return { status: 'success', message: `Imported ${ok} of ${items.length} triggers`, imported };
  }

  private async save(input: Record<string, unknown>, member: string, caller: Caller, keepId: boolean): Promise<TriggerRecord> {
    const record = toTriggerRecord(input, member, caller, Date.now(), { newId: newTriggerId, keepId });
    await this.automations.getAutomation(record.actionId);
    const stored = await this.repo.insert(record);
    this.events?.invalidate();
    return stored;
  }

  async update(id: string, body: Record<string, unknown>, caller: Caller): Promise<Trigger> {
    const existing = await this.repo.get(id);
    const changes = isRecord(body.changes) && Object.keys(body).length === 1 ? body.changes : body;
    const record = toTriggerRecord(changes, 'body', caller, Date.now(), { existing, newId: newTriggerId });
    if (record.actionId !== existing.actionId) await this.automations.getAutomation(record.actionId);
    if (!(await this.repo.replace(record))) throw new AppError('TRIGGER_NOT_FOUND', `No trigger with id "${id}"`);
    this.events?.invalidate();
    return toPublicTrigger(record);
  }

  async delete(id: string): Promise<number> {
    const deleted = await this.repo.delete(id);
    if (deleted === 0) throw new AppError('TRIGGER_NOT_FOUND', `No trigger with id "${id}"`);
    this.events?.invalidate();
    return deleted;
  }

  async deleteByAction(actionId: string): Promise<number> {
    const deleted = await this.repo.deleteByAction(actionId);
    this.events?.invalidate();
    return deleted;
  }

  /** `POST /operations-manager/triggers/endpoint/:routeName`: checks, transforms and starts, as the caller. */
  async runEndpoint(routeName: string, body: unknown, caller: Caller): Promise<JobRecord> {
    const trigger = await this.repo.findEndpoint(routeName);
    if (trigger === null) throw new AppError('TRIGGER_NOT_FOUND', `No endpoint trigger has the route name "${routeName}"`);
    assertEnabled(trigger);
    this.starter.checkBody(trigger, body ?? {});
    const variables = await this.starter.variablesOf(trigger, body, caller);
    return this.started(await this.starter.start(trigger, variables, caller), trigger);
  }

  /** `POST /operations-manager/triggers/manual/:id/run`: the form data (over the trigger's defaults), checked against the form, starts the job. */
  async runManual(id: string, formData: Record<string, unknown>, caller: Caller): Promise<JobRecord> {
    const trigger = await this.repo.get(id);
    if (trigger.type !== 'manual')
      throw new AppError('UNPROCESSABLE', `Trigger "${trigger.name}" is a ${trigger.type} trigger, not a manual one`);
    assertEnabled(trigger);
    const data = { ...(trigger.formData ?? {}), ...formData };
    if (typeof trigger.formId === 'string' && trigger.formId !== '') await this.checkForm(trigger.formId, data, caller);
    return this.started(await this.starter.start(trigger, data, caller), trigger);
  }

  /** Checks form data against the JSON Schema of a JSON form (formbuilder forms have none to check). */
  private async checkForm(formId: string, data: Record<string, unknown>, caller: Caller): Promise<void> {
    const form = (await this.client.call('studio.getForm', { params: { id: formId } }, { caller })).body;
    this.starter.checkSchema(`form ${form._id}@${form.last_updated}`, `form "${form.name}"`, form.schema, data, 'body.formData');
  }

  private started(job: JobRecord | undefined, trigger: TriggerRecord): JobRecord {
    if (job === undefined) throw new AppError('INTERNAL', `Trigger "${trigger.name}" started no job`);
    return job;
  }
}

function assertEnabled(trigger: TriggerRecord): void {
  if (trigger.enabled === false)
    throw new AppError('TRIGGER_DISABLED', `Trigger "${trigger.name}" is disabled; enable it (PATCH enabled: true) to run it`);
}
