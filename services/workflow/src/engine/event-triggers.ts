import { ALL_EVENTS, SYSTEM_CALLER, hasCode, isRetryable, parseEventSubject } from '@nap/contracts';
import type { Caller } from '@nap/contracts';
import type { Bus, BusEvent, Subscription } from '@nap/bus';
import type { Logger } from '@nap/telemetry';
import { errorMessage, isRecord } from '@nap/util';
import { eventOfTopic, occasionJobId } from '../domain/trigger-model';
import type { TriggerRecord } from '../domain/trigger-model';
import type { JobRepository } from '../store/job-repository';
import type { TriggerRepository } from '../store/trigger-repository';
import { canSeeJob } from '../domain/job-model';
import type { TriggerStarter } from './trigger-starter';

/** Name of the durable consumer the workflow replicas share: each event is handled by one of them. */
export const EVENT_TRIGGER_CONSUMER = 'workflow-event-triggers';

/**
 * The most event triggers in a row that may lead to one job: the trigger of an event of a job that
 * this many triggers led to does not fire (a chain of automations longer than any deliberate one).
 */
export const MAX_TRIGGER_CHAIN = 10;

/** How long the list of event triggers is reused before it is read again, ms. */
const TRIGGER_LIST_TTL_MS = 1_000;

/**
 * Fires eventSystem triggers: one durable JetStream consumer of every platform event, shared by
 * the workflow replicas (each event goes to one of them, and is delivered again if the replica dies
 * before it is handled). For each enabled trigger whose topic names the event and whose schema the
 * payload matches, the automation starts with the payload (or its JST's outgoing values) as job
 * variables, as the trigger's creator. The job id derives from trigger and event position, so a
 * redelivered event starts no second job. An event of a job (job and task events) fires only the
 * triggers whose creator may see that job, and never a trigger whose own firing led to the job
 * (directly or through other event triggers: the job keeps the chain), nor any trigger once
 * {@link MAX_TRIGGER_CHAIN} triggers in a row led to it: no chain of event triggers loops.
 */
export class EventTriggers {
  private subscription: Subscription | undefined;
  /** The list of enabled event triggers as last read, and when; `read` once the read answered. */
  private cached: { at: number; triggers: Promise<TriggerRecord[]>; read?: TriggerRecord[] } | undefined;

  constructor(
    private readonly bus: Bus,
    private readonly triggers: TriggerRepository,
    private readonly jobs: Pick<JobRepository, 'firingContextOf'>,
    private readonly starter: TriggerStarter,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    this.subscription = await this.bus.consumeEvents(ALL_EVENTS, (event) => this.receive(event), {
      durableName: EVENT_TRIGGER_CONSUMER,
      deliver: 'new',
    });
  }

  async stop(): Promise<void> {
    await this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  /** Forget the cached trigger list (a trigger was created, changed or deleted here). */
  invalidate(): void {
    this.cached = undefined;
  }

  private eventTriggers(): Promise<TriggerRecord[]> {
    if (this.cached === undefined || Date.now() - this.cached.at > TRIGGER_LIST_TTL_MS) {
      const cached: NonNullable<EventTriggers['cached']> = { at: Date.now(), triggers: this.triggers.enabled({ type: 'eventSystem' }) };
      cached.triggers.then(
        (read) => (cached.read = read),
        () => undefined,
      );
      this.cached = cached;
    }
    return this.cached.triggers;
  }

  /**
   * Every platform event comes here (each job's task events among them): while the list read less
   * than a second ago holds no event trigger, one goes no further.
   */
  private receive(event: BusEvent): Promise<void> | undefined {
    const cached = this.cached;
    if (cached?.read?.length === 0 && Date.now() - cached.at <= TRIGGER_LIST_TTL_MS) return undefined;
    return this.handle(event);
  }

  private async handle(event: BusEvent): Promise<void> {
    const parts = parseEventSubject(event.subject);
    if (parts === undefined) return;
    const matching = (await this.eventTriggers()).filter((t) => {
      const named = typeof t.topic === 'string' ? eventOfTopic(t.topic, t.source) : undefined;
      return named !== undefined && named.service === parts.service && named.entity === parts.entity && named.event === parts.event;
    });
    if (matching.length === 0) return;
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(event.data).toString('utf8'));
    } catch {
      this.log.warn({ subject: event.subject }, 'An event that is not JSON cannot fire triggers');
      return;
    }
    // the audit record of a job an event trigger started would fire the trigger again, for ever
    if (isTriggerAuditRecord(parts.service, parts.entity, payload)) return;
    const job = await this.jobOf(parts.service, parts.entity, payload);
    for (const trigger of matching) {
      const caller = trigger.runAs ?? SYSTEM_CALLER;
      // an event of a job the trigger's creator may not see is not theirs to act on (as on the event stream)
      if (job !== undefined && (job.context === null || !canSeeJob(job.context, caller))) continue;
      const chain = job?.chain ?? [];
      if (chain.includes(trigger._id)) continue; // the trigger's own firing led to the job: firing again would loop
      if (chain.length >= MAX_TRIGGER_CHAIN) {
        this.log.warn(
          { triggerId: trigger._id, subject: event.subject, chain },
          `An event trigger did not fire: ${MAX_TRIGGER_CHAIN} event triggers in a row led to the job of the event`,
        );
        continue;
      }
      await this.fire(trigger, event, payload, caller, [...chain, trigger._id]);
    }
  }

  /**
   * For an event of a job (the workflow service's job and task events): who may see the job and the
   * chain of event triggers that led to it (a child job's is its root job's); undefined for other events.
   */
  private async jobOf(
    service: string,
    entity: string,
    payload: unknown,
  ): Promise<{ context: Parameters<typeof canSeeJob>[0] | null; chain: string[] } | undefined> {
    if (service !== 'workflow' || entity !== 'job' || !isRecord(payload) || typeof payload.jobId !== 'string') return undefined;
    const context = await this.jobs.firingContextOf(payload.jobId);
    if (context === null) return { context: null, chain: [] };
    let chain = context.triggerChain ?? [];
    const root = context.ancestors?.[0];
    if (chain.length === 0 && root !== undefined) chain = (await this.jobs.firingContextOf(root))?.triggerChain ?? [];
    return { context, chain };
  }

  private async fire(trigger: TriggerRecord, event: BusEvent, payload: unknown, caller: Caller, triggerChain: string[]): Promise<void> {
    const jobId = occasionJobId(trigger._id, `evt:${event.seq}`, event.timestamp);
    try {
      let checked: unknown;
      try {
        checked = await this.starter.checkBody(trigger, payload, 'payload');
      } catch (err) {
        if (hasCode(err, 'VALIDATION_FAILED')) return; // the event does not match this trigger's schema
        throw err; // a schema that cannot be used (or whose check overran): the trigger's failure, recorded below
      }
      const variables = await this.starter.variablesOf(trigger, checked, caller);
      const job = await this.starter.start(trigger, variables, caller, { jobId, triggerChain });
      // a record that could not be kept is retryable: the event comes again, its job is not started twice
      await this.starter.recordStart('trigger', trigger, caller, jobId);
      this.log.info(
        { triggerId: trigger._id, subject: event.subject, jobId: job?._id, alreadyFired: job === undefined },
        'Event trigger fired',
      );
    } catch (err) {
      // retryable: the event is delivered again; anything else would fail every time
      if (isRetryable(err)) throw err;
      await this.starter
        .recordStart('trigger', trigger, caller, jobId, err)
        .catch((recordErr: unknown) =>
          this.log.warn({ err: recordErr, triggerId: trigger._id }, 'The failed start of an event trigger could not be audited'),
        );
      this.log.error(
        { triggerId: trigger._id, subject: event.subject, reason: errorMessage(err) },
        'An event trigger could not start its automation',
      );
    }
  }
}

/** True for the `auditRecorded` event of something an event trigger did (the platform actor `trigger`). */
function isTriggerAuditRecord(service: string, entity: string, payload: unknown): boolean {
  if (service !== 'admin' || entity !== 'audit' || !isRecord(payload) || !isRecord(payload.actor)) return false;
  return payload.actor.kind === 'platform' && payload.actor.username === 'trigger';
}
