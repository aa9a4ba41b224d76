import type { Static, TSchema } from '@sinclair/typebox';
import type { JsonSchema } from './catalog/types';
import type { ServiceName } from './services';
import { arr, closed, embed, epochMs, int, name, obj, oneOf, str, withId } from './schemas/common';
import { jobErrorEntrySchema } from './schemas/job';
import { auditRecordSchema } from './schemas/audit';

/**
 * Domain events. Services publish them to `nap.evt.<service>.<entity>.<id>.<event>` (subjects from
 * `eventSubject` of subjects.ts; JetStream stream `NAP_EVENTS` on NATS); the payload of each is
 * described by a schema here, and its TypeScript type is derived from that schema
 * ({@link EventPayloadOf}), so the two cannot drift.
 */

/** Names of the job events of the workflow engine (entity `job`, id the job id). */
export const JOB_EVENTS = ['jobStart', 'jobComplete', 'jobError', 'jobCancel', 'jobPause', 'jobResume', 'taskStart', 'taskFinish'] as const;
/** One of {@link JOB_EVENTS}. */
export type JobEventName = (typeof JOB_EVENTS)[number];

/** Why an adapter changed: its document (created, updated, deleted) or its lifecycle state. */
export const ADAPTER_CHANGE_REASONS = ['created', 'updated', 'deleted', 'state'] as const;

/** Reasons of an `accountChanged` event. */
export const ACCOUNT_CHANGE_REASONS = ['groups', 'password', 'deleted', 'updated', 'roles', 'throttled'] as const;
/** One of {@link ACCOUNT_CHANGE_REASONS}. */
export type AccountChangeReason = (typeof ACCOUNT_CHANGE_REASONS)[number];

function jobBase() {
  return {
    jobId: name('job id'),
    name: str({ description: 'workflow name of the job' }),
    status: str({ description: 'job status after the event: running, complete, error, canceled, paused' }),
    timestamp: epochMs('when it happened, epoch milliseconds (like job error entries)'),
    seq: int({
      minimum: 1,
      description:
        "position of the event in the job's stream, from 1, without gaps. Job events are delivered at least once: a repeat carries the same seq, so drop an event whose seq you have seen",
    }),
  };
}

/** The `$id` of the payload schema of an event. */
function eventId(service: ServiceName, entity: string, event: string): string {
  return `nap:evt/${service}.${entity}.${event}`;
}

/** A job-level event: the members every job event carries, `by`, and the event's own members (`required` of them required). */
function jobEventSchema<X extends Record<string, TSchema>, const R extends readonly (keyof X & string)[]>(
  event: JobEventName,
  extra: X,
  required: R,
) {
  const properties = {
    ...jobBase(),
    by: str({ description: 'username of who caused it (start, cancel, pause, resume), when a person or client did' }),
    ...extra,
  };
  return withId(eventId('workflow', 'job', event), obj(properties, ['jobId', 'name', 'status', 'timestamp', 'seq', ...required]));
}

/** A task event: the members every job event carries and the task's id, name and status. */
function taskEventSchema<X extends Record<string, TSchema>>(event: JobEventName, extra: X) {
  return withId(
    eventId('workflow', 'job', event),
    obj(
      {
        ...jobBase(),
        taskId: name('task id within the job'),
        taskName: str({ description: "task name (name is the workflow's)" }),
        taskStatus: str({ description: 'task status after the event' }),
        ...extra,
      },
      ['jobId', 'name', 'status', 'timestamp', 'seq', 'taskId', 'taskName', 'taskStatus'],
    ),
  );
}

/**
 * The payload schema of every event, by service, entity and event name. Payload schemas accept
 * members they do not name (consumers ignore them), except the admin events, which are exact.
 */
export const EVENT_SCHEMAS = {
  workflow: {
    job: {
      jobStart: jobEventSchema('jobStart', {}, []),
      jobComplete: jobEventSchema('jobComplete', { finishState: str({ description: 'finish state of the job' }) }, []),
      jobError: jobEventSchema(
        'jobError',
        { finishState: str({ description: 'finish state of the job' }), error: arr(embed(jobErrorEntrySchema)) },
        ['error'],
      ),
      jobCancel: jobEventSchema('jobCancel', { finishState: str({ description: 'finish state of the job' }) }, []),
      jobPause: jobEventSchema('jobPause', {}, []),
      jobResume: jobEventSchema(
        'jobResume',
        { taskId: name("a retry by hand (retryTask) resumed the job: the task it runs again (see the task's retries)") },
        [],
      ),
      taskStart: taskEventSchema('taskStart', {}),
      taskFinish: taskEventSchema('taskFinish', {
        finishState: str({ description: 'success, error or failure' }),
        by: str({ description: "a manual task: the username of who answered it (the task's metrics.user)" }),
      }),
    },
  },
  admin: {
    session: {
      sessionRevoked: withId(
        eventId('admin', 'session', 'sessionRevoked'),
        closed(
          {
            sid: name('session id'),
            exp: int({ minimum: 0, description: 'token expiry, epoch seconds: the revocation can be forgotten after it' }),
          },
          ['sid', 'exp'],
        ),
      ),
    },
    account: {
      accountChanged: withId(
        eventId('admin', 'account', 'accountChanged'),
        closed({ accountId: name('account id'), reason: oneOf(ACCOUNT_CHANGE_REASONS) }, ['accountId', 'reason']),
      ),
    },
    group: {
      groupChanged: withId(eventId('admin', 'group', 'groupChanged'), closed({ groupId: name('group id') }, ['groupId'])),
    },
    audit: {
      auditRecorded: withId(eventId('admin', 'audit', 'auditRecorded'), embed(auditRecordSchema)),
    },
    adapter: {
      adapterChanged: withId(
        eventId('admin', 'adapter', 'adapterChanged'),
        closed(
          {
            name: name(
              'adapter name, as it is (the subject carries it percent-encoded where it cannot be one token: `NSO lab 1.2` is `NSO%20lab%201%2E2`)',
            ),
            reason: oneOf(ADAPTER_CHANGE_REASONS),
            state: str({ description: 'lifecycle state after the change' }),
          },
          ['name', 'reason'],
        ),
      ),
    },
  },
  mop: {
    reattempt: {
      reattemptDue: withId(
        eventId('mop', 'reattempt', 'reattemptDue'),
        obj(
          {
            jobId: str(),
            attemptID: str(),
            attempt: int({ minimum: 1 }),
            attempts: int({ minimum: 1 }),
            reattemptAt: int({ minimum: 0, description: 'epoch ms' }),
          },
          ['attempt', 'attempts', 'reattemptAt'],
        ),
      ),
    },
  },
} satisfies Partial<Record<ServiceName, Record<string, Record<string, TSchema>>>>;

type EventSchemas = typeof EVENT_SCHEMAS;
/** Services that publish events. */
export type EventService = keyof EventSchemas;
/** Entities of the events of service `S`. */
export type EventEntityOf<S extends EventService> = keyof EventSchemas[S] & string;
/** Names of the events of entity `E` of service `S`. */
export type EventNameOf<S extends EventService, E extends EventEntityOf<S>> = keyof EventSchemas[S][E] & string;

/**
 * The payload type of an event, derived from its schema: `EventPayloadOf<'workflow', 'job', 'jobComplete'>`.
 * A publisher that types its payload with it fails to compile when payload and schema disagree.
 */
export type EventPayloadOf<
  S extends EventService,
  E extends EventEntityOf<S>,
  N extends EventNameOf<S, E>,
> = EventSchemas[S][E][N] extends TSchema ? Static<EventSchemas[S][E][N]> : never;

/** Names of the job-level events (the others of {@link JOB_EVENTS} are task events). */
export type JobLevelEventName = Exclude<JobEventName, 'taskStart' | 'taskFinish'>;

/** Members every job event carries: job id, workflow name, job status after the event, epoch-ms timestamp, position in the job's stream. */
export type JobEventBase = Pick<EventPayloadOf<'workflow', 'job', 'jobStart'>, 'jobId' | 'name' | 'status' | 'timestamp' | 'seq'>;

/** Payload of a job-level event (`by`: who caused it; `finishState` and `error` on the events that carry them). */
export type JobEvent = { [N in JobLevelEventName]: EventPayloadOf<'workflow', 'job', N> }[JobLevelEventName];

/** Payload of `taskStart` and `taskFinish` (`finishState` of the task on taskFinish: success, error, failure). */
export type TaskEvent = EventPayloadOf<'workflow', 'job', 'taskStart' | 'taskFinish'>;

/** Payload of `sessionRevoked` (entity `session`, id the session id). */
export type SessionRevokedEvent = EventPayloadOf<'admin', 'session', 'sessionRevoked'>;

/** Payload of `accountChanged` (entity `account`, id the account id). */
export type AccountChangedEvent = EventPayloadOf<'admin', 'account', 'accountChanged'>;

/** Payload of `adapterChanged` (entity `adapter`, id the adapter name). */
export type AdapterChangedEvent = EventPayloadOf<'admin', 'adapter', 'adapterChanged'>;

/** Payload of `groupChanged` (entity `group`, id the group id). */
export type GroupChangedEvent = EventPayloadOf<'admin', 'group', 'groupChanged'>;

/** Payload of `auditRecorded` (entity `audit`, id the record's seq): the audit record as `GET /audit` answers it. */
export type AuditRecordedEvent = EventPayloadOf<'admin', 'audit', 'auditRecorded'>;

/** Payload of `reattemptDue` (entity `reattempt`, id the re-attempt id). */
export type ReattemptDueEvent = EventPayloadOf<'mop', 'reattempt', 'reattemptDue'>;

/** One kind of event: who publishes it, on which entity, and its payload schema. */
export interface EventDef {
  service: ServiceName;
  entity: string;
  event: string;
  schema: JsonSchema;
  summary: string;
}

/** Every event of the platform, with its payload schema from {@link EVENT_SCHEMAS}. */
export const EVENTS: readonly EventDef[] = Object.freeze([
  {
    service: 'workflow',
    entity: 'job',
    event: 'jobStart',
    summary: 'A job was created and started',
    schema: EVENT_SCHEMAS.workflow.job.jobStart,
  },
  {
    service: 'workflow',
    entity: 'job',
    event: 'jobComplete',
    summary: 'A job reached workflow_end',
    schema: EVENT_SCHEMAS.workflow.job.jobComplete,
  },
  {
    service: 'workflow',
    entity: 'job',
    event: 'jobError',
    summary: 'A job stopped on an error it could not handle',
    schema: EVENT_SCHEMAS.workflow.job.jobError,
  },
  { service: 'workflow', entity: 'job', event: 'jobCancel', summary: 'A job was canceled', schema: EVENT_SCHEMAS.workflow.job.jobCancel },
  { service: 'workflow', entity: 'job', event: 'jobPause', summary: 'A job was paused', schema: EVENT_SCHEMAS.workflow.job.jobPause },
  {
    service: 'workflow',
    entity: 'job',
    event: 'jobResume',
    summary: 'A paused job was resumed',
    schema: EVENT_SCHEMAS.workflow.job.jobResume,
  },
  {
    service: 'workflow',
    entity: 'job',
    event: 'taskStart',
    summary: 'A task of a job started',
    schema: EVENT_SCHEMAS.workflow.job.taskStart,
  },
  {
    service: 'workflow',
    entity: 'job',
    event: 'taskFinish',
    summary: 'A task of a job finished',
    schema: EVENT_SCHEMAS.workflow.job.taskFinish,
  },
  {
    service: 'admin',
    entity: 'session',
    event: 'sessionRevoked',
    summary: 'A session was ended (logout, password change, account deleted); its tokens are no longer accepted',
    schema: EVENT_SCHEMAS.admin.session.sessionRevoked,
  },
  {
    service: 'admin',
    entity: 'account',
    event: 'accountChanged',
    summary:
      'An account changed in a way that affects its tokens (groups, roles, password, deletion, other update) or its logins are throttled (gateways forget the Basic credentials they remembered)',
    schema: EVENT_SCHEMAS.admin.account.accountChanged,
  },
  {
    service: 'admin',
    entity: 'group',
    event: 'groupChanged',
    summary: 'A group changed (roles, deletion); accounts in it get new roles',
    schema: EVENT_SCHEMAS.admin.group.groupChanged,
  },
  {
    service: 'admin',
    entity: 'adapter',
    event: 'adapterChanged',
    summary: 'An adapter was created, changed, deleted or changed state; services that cache adapter records drop theirs',
    schema: EVENT_SCHEMAS.admin.adapter.adapterChanged,
  },
  {
    service: 'admin',
    entity: 'audit',
    event: 'auditRecorded',
    summary:
      'A record was appended to the audit trail (a change, a login or logout, a refusal, a platform action); for a SIEM. Published after the record is stored, at least once: drop a seq you have seen',
    schema: EVENT_SCHEMAS.admin.audit.auditRecorded,
  },
  {
    service: 'mop',
    entity: 'reattempt',
    event: 'reattemptDue',
    summary: 'A re-attempt scheduled by mop.reattempt is due; the job that asked for it may run again',
    schema: EVENT_SCHEMAS.mop.reattempt.reattemptDue,
  },
] satisfies EventDef[]);

/** The definition of an event by service, entity and name. Throws an `Error` naming it when unknown. */
export function getEvent(service: ServiceName, entity: string, event: string): EventDef {
  const def = EVENTS.find((e) => e.service === service && e.entity === entity && e.event === event);
  if (def === undefined) throw new Error(`Unknown event ${service}.${entity}.${event}`);
  return def;
}
