import { ALL_EVENTS, SYSTEM_CALLER, isRetryable, parseEventSubject } from '@nap/contracts';
import type { Bus, BusEvent, Subscription } from '@nap/bus';
import type { Logger } from '@nap/telemetry';
import { errorMessage, isRecord } from '@nap/util';
import { eventOfTopic, occasionJobId } from '../domain/trigger-model';
import type { TriggerRecord } from '../domain/trigger-model';
import type { TriggerRepository } from '../store/trigger-repository';
import type { TriggerStarter } from './trigger-starter';

/** Name of the durable consumer the workflow replicas share: each event is handled by one of them. */
export const EVENT_TRIGGER_CONSUMER = 'workflow-event-triggers';

/** How long the list of event triggers is reused before it is read again, ms. */
const TRIGGER_LIST_TTL_MS = 1_000;

/**
 * Fires eventSystem triggers: one durable JetStream consumer of every platform event, shared by
 * the workflow replicas (each event goes to one of them, and is delivered again if the replica dies
 * before it is handled). For each enabled trigger whose topic names the event and whose schema the
 * payload matches, the automation starts with the payload (or its JST's outgoing values) as job
 * variables, as the trigger's creator. The job id derives from trigger and event position, so a
 * redelivered event starts no second job.
 */
export class EventTriggers {
  private subscription: Subscription | undefined;
  /** The list of enabled event triggers as last read, and when; `read` once the read answered. */
  private cached: { at: number; triggers: Promise<TriggerRecord[]>; read?: TriggerRecord[] } | undefined;

  constructor(
    private readonly bus: Bus,
    private readonly triggers: TriggerRepository,
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
    for (const trigger of matching) await this.fire(trigger, event, payload);
  }

  private async fire(trigger: TriggerRecord, event: BusEvent, payload: unknown): Promise<void> {
    const caller = trigger.runAs ?? SYSTEM_CALLER;
    try {
      this.starter.checkBody(trigger, payload, 'payload');
    } catch {
      return; // the event does not match this trigger's schema
    }
    const jobId = occasionJobId(trigger._id, `evt:${event.seq}`, event.timestamp);
    try {
      const variables = await this.starter.variablesOf(trigger, payload, caller);
      const job = await this.starter.start(trigger, variables, caller, { jobId });
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
