import type { JsonSchema } from './catalog/types';
import type { ServiceName } from './services';
import { isServiceName } from './services';
import { arr, closed, embed, epochMs, int, name, obj, str } from './schemas/common';
import { jobErrorEntrySchema, type JobErrorEntry } from './schemas/job';

/**
 * Domain events. Services publish them to `nap.evt.<service>.<entity>.<id>.<event>` (JetStream
 * stream `NAP_EVENTS` on NATS); the payload of each is described by a schema here.
 */

/** Names of the job events of the workflow engine (entity `job`, id the job id). */
export const JOB_EVENTS = ['jobStart', 'jobComplete', 'jobError', 'jobCancel', 'jobPause', 'jobResume', 'taskStart', 'taskFinish'] as const;
/** One of {@link JOB_EVENTS}. */
export type JobEventName = (typeof JOB_EVENTS)[number];

/** Reasons of an `accountChanged` event. */
export const ACCOUNT_CHANGE_REASONS = ['groups', 'password', 'deleted', 'updated', 'roles'] as const;
/** One of {@link ACCOUNT_CHANGE_REASONS}. */
export type AccountChangeReason = (typeof ACCOUNT_CHANGE_REASONS)[number];

/** Members every job event carries. */
export interface JobEventBase {
  jobId: string;
  /** Workflow name of the job. */
  name: string;
  /** Job status after the event: running, complete, error, canceled, paused. */
  status: string;
  /** When it happened, epoch milliseconds (like job error entries). */
  timestamp: number;
}

/** Payload of a job-level event. */
export interface JobEvent extends JobEventBase {
  /** Account that caused the event (start, cancel, pause, resume), when a person or client did. */
  by?: string;
  /** Finish state of the job (jobComplete, jobError, jobCancel). */
  finishState?: string;
  /** Error entries of the job (jobError). */
  error?: JobErrorEntry[];
}

/** Payload of `taskStart` and `taskFinish`. */
export interface TaskEvent extends JobEventBase {
  taskId: string;
  /** Task name (`name` is the workflow's). */
  taskName: string;
  /** Task status after the event. */
  taskStatus: string;
  /** Finish state of the task (taskFinish): success, error, failure. */
  finishState?: string;
}

/** Payload of `sessionRevoked` (entity `session`, id the session id). */
export interface SessionRevokedEvent {
  sid: string;
  /** Expiry of the revoked token, epoch seconds: the revocation can be forgotten after it. */
  exp: number;
}

/** Payload of `accountChanged` (entity `account`, id the account id). */
export interface AccountChangedEvent {
  accountId: string;
  reason: AccountChangeReason;
}

/** Payload of `groupChanged` (entity `group`, id the group id). */
export interface GroupChangedEvent {
  groupId: string;
}

function jobBase(): Record<string, JsonSchema> {
  return {
    jobId: name('job id'),
    name: str({ description: 'workflow name of the job' }),
    status: str({ description: 'job status after the event' }),
    timestamp: epochMs(),
  };
}

const JOB_BASE_REQUIRED = ['jobId', 'name', 'status', 'timestamp'] as const;

function jobEventSchema(event: JobEventName, extra: Record<string, JsonSchema> = {}, required: readonly string[] = []): JsonSchema {
  return {
    $id: `nap:evt/workflow.job.${event}`,
    ...obj({ ...jobBase(), by: str({ description: 'account id of who caused it' }), ...extra }, [...JOB_BASE_REQUIRED, ...required]),
  };
}

function taskEventSchema(event: JobEventName, extra: Record<string, JsonSchema> = {}): JsonSchema {
  return {
    $id: `nap:evt/workflow.job.${event}`,
    ...obj(
      { ...jobBase(), taskId: name('task id within the job'), taskName: str(), taskStatus: str(), ...extra },
      [...JOB_BASE_REQUIRED, 'taskId', 'taskName', 'taskStatus'],
    ),
  };
}

/** One kind of event: who publishes it, on which entity, and its payload schema. */
export interface EventDef {
  service: ServiceName;
  entity: string;
  event: string;
  schema: JsonSchema;
  summary: string;
}

/** Every event of the platform. Payload schemas accept members they do not name (consumers ignore them). */
export const EVENTS: readonly EventDef[] = Object.freeze([
  { service: 'workflow', entity: 'job', event: 'jobStart', summary: 'A job was created and started', schema: jobEventSchema('jobStart') },
  {
    service: 'workflow',
    entity: 'job',
    event: 'jobComplete',
    summary: 'A job reached workflow_end',
    schema: jobEventSchema('jobComplete', { finishState: str() }),
  },
  {
    service: 'workflow',
    entity: 'job',
    event: 'jobError',
    summary: 'A job stopped on an error it could not handle',
    schema: jobEventSchema('jobError', { finishState: str(), error: arr(embed(jobErrorEntrySchema)) }, ['error']),
  },
  { service: 'workflow', entity: 'job', event: 'jobCancel', summary: 'A job was canceled', schema: jobEventSchema('jobCancel', { finishState: str() }) },
  { service: 'workflow', entity: 'job', event: 'jobPause', summary: 'A job was paused', schema: jobEventSchema('jobPause') },
  { service: 'workflow', entity: 'job', event: 'jobResume', summary: 'A paused job was resumed', schema: jobEventSchema('jobResume') },
  { service: 'workflow', entity: 'job', event: 'taskStart', summary: 'A task of a job started', schema: taskEventSchema('taskStart') },
  {
    service: 'workflow',
    entity: 'job',
    event: 'taskFinish',
    summary: 'A task of a job finished',
    schema: taskEventSchema('taskFinish', { finishState: str({ description: 'success, error or failure' }) }),
  },
  {
    service: 'admin',
    entity: 'session',
    event: 'sessionRevoked',
    summary: 'A session was ended (logout, password change, account deleted); its tokens are no longer accepted',
    schema: {
      $id: 'nap:evt/admin.session.sessionRevoked',
      ...closed({ sid: name('session id'), exp: int({ minimum: 0, description: 'token expiry, epoch seconds' }) }, ['sid', 'exp']),
    },
  },
  {
    service: 'admin',
    entity: 'account',
    event: 'accountChanged',
    summary: 'An account changed in a way that affects its tokens (groups, roles, password, deletion, other update)',
    schema: {
      $id: 'nap:evt/admin.account.accountChanged',
      ...closed({ accountId: name('account id'), reason: { type: 'string', enum: [...ACCOUNT_CHANGE_REASONS] } }, ['accountId', 'reason']),
    },
  },
  {
    service: 'admin',
    entity: 'group',
    event: 'groupChanged',
    summary: 'A group changed (roles, deletion); accounts in it get new roles',
    schema: { $id: 'nap:evt/admin.group.groupChanged', ...closed({ groupId: name('group id') }, ['groupId']) },
  },
  {
    service: 'mop',
    entity: 'reattempt',
    event: 'reattemptDue',
    summary: 'A re-attempt scheduled by mop.reattempt is due; the job that asked for it may run again',
    schema: {
      $id: 'nap:evt/mop.reattempt.reattemptDue',
      ...obj(
        {
          jobId: str(),
          attemptID: str(),
          attempt: int({ minimum: 1 }),
          attempts: int({ minimum: 1 }),
          reattemptAt: int({ minimum: 0, description: 'epoch ms' }),
        },
        ['attempt', 'attempts', 'reattemptAt'],
      ),
    },
  },
] satisfies EventDef[]);

const TOKEN = /^[^\s.*>]+$/;

function assertToken(what: string, value: string): void {
  if (!TOKEN.test(value)) {
    throw new Error(`Event subject ${what} "${value}" must be one non-empty token without spaces, ".", "*" or ">"`);
  }
}

/**
 * The subject of an event, `nap.evt.<service>.<entity>.<id>.<event>`, for example
 * `nap.evt.workflow.job.<jobId>.jobComplete`. Throws when a part is empty or would split the
 * subject (contains `.`, `*`, `>` or white space), or when `service` is not a service.
 */
export function eventSubject(service: ServiceName, entity: string, id: string, event: string): string {
  if (!isServiceName(service)) throw new Error(`Event subject service "${String(service)}" is not a service of the platform`);
  assertToken('entity', entity);
  assertToken('id', id);
  assertToken('event', event);
  return `nap.evt.${service}.${entity}.${id}.${event}`;
}

/**
 * A subscription pattern over event subjects: every event of an entity id
 * (`nap.evt.workflow.job.<jobId>.*`), or of every id when `id` is omitted (`nap.evt.workflow.job.*.*`).
 */
export function eventPattern(service: ServiceName, entity: string, id?: string): string {
  if (!isServiceName(service)) throw new Error(`Event pattern service "${String(service)}" is not a service of the platform`);
  assertToken('entity', entity);
  if (id !== undefined) assertToken('id', id);
  return `nap.evt.${service}.${entity}.${id ?? '*'}.*`;
}

/** The definition of an event by service, entity and name. Throws an `Error` naming it when unknown. */
export function getEvent(service: ServiceName, entity: string, event: string): EventDef {
  const def = EVENTS.find((e) => e.service === service && e.entity === entity && e.event === event);
  if (def === undefined) throw new Error(`Unknown event ${service}.${entity}.${event}`);
  return def;
}
