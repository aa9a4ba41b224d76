import type { ServiceName } from './services';
import { isServiceName } from './services';

/**
 * Every bus subject of the platform is built here; no other module writes one as a literal.
 *
 * - `nap.rpc.<service>.<operation>`: requests to catalog operations (`subjectOf` in the catalog);
 * - `nap.evt.<service>.<entity>.<id>.<event>`: durable domain events (JetStream stream `NAP_EVENTS`);
 * - `nap.sys.<area>.<name>`: the platform's own signals, not part of the interface (engine wake-ups,
 *   metrics gathering), never stored.
 */

/** Prefix of every request subject: `nap.rpc.<service>.<operation>`. */
export const RPC_PREFIX = 'nap.rpc';
/** Prefix of every event subject: `nap.evt.<service>.<entity>.<id>.<event>`. */
export const EVENT_PREFIX = 'nap.evt';
/** Prefix of the platform's own signals: `nap.sys.<area>.<name>`. */
export const SYSTEM_PREFIX = 'nap.sys';
/** Prefix of the platform's work queues, `nap.queue.<queue>` (one JetStream stream each on NATS). */
export const QUEUE_PREFIX = 'nap.queue';
/** The platform's work queues: `audit`, the entries waiting to be appended to the audit chain. */
export const WORK_QUEUES = ['audit'] as const;
/** One of {@link WORK_QUEUES}. */
export type WorkQueueName = (typeof WORK_QUEUES)[number];

/** The subject of work queue `queue`, `nap.queue.<queue>`. */
export function queueSubject(queue: WorkQueueName): string {
  if (!WORK_QUEUES.includes(queue)) throw new Error(`"${String(queue)}" is not a work queue of the platform`);
  return `${QUEUE_PREFIX}.${queue}`;
}

/** The filter matching every event subject (what the JetStream stream keeps). */
export const ALL_EVENTS = `${EVENT_PREFIX}.>`;

const TOKEN = /^[^\s.*>]+$/;

/** True when `value` can stand as one token of a subject (an id in an event subject). */
export function isSubjectToken(value: string): boolean {
  return TOKEN.test(value);
}

function assertToken(what: string, value: string): void {
  if (!TOKEN.test(value)) {
    throw new Error(`Subject ${what} "${value}" must be one non-empty token without spaces, ".", "*" or ">"`);
  }
}

function assertService(service: string): void {
  if (!isServiceName(service)) throw new Error(`Subject service "${service}" is not a service of the platform`);
}

/** The request subject of operation `name` of `service`, `nap.rpc.<service>.<name>`. */
export function rpcSubject(service: ServiceName, name: string): string {
  assertService(service);
  assertToken('operation', name);
  return `${RPC_PREFIX}.${service}.${name}`;
}

/**
 * The subject of an event, `nap.evt.<service>.<entity>.<id>.<event>`, for example
 * `nap.evt.workflow.job.<jobId>.jobComplete`. Throws when a part is empty or would split the
 * subject (contains `.`, `*`, `>` or white space), or when `service` is not a service.
 */
export function eventSubject(service: ServiceName, entity: string, id: string, event: string): string {
  assertService(service);
  assertToken('entity', entity);
  assertToken('id', id);
  assertToken('event', event);
  return `${EVENT_PREFIX}.${service}.${entity}.${id}.${event}`;
}

/**
 * A subscription pattern over event subjects: every event of an entity id
 * (`nap.evt.workflow.job.<jobId>.*`), of every id when `id` is omitted (`nap.evt.workflow.job.*.*`),
 * or of every entity of the service when `entity` is omitted too (`nap.evt.admin.>`).
 */
export function eventPattern(service: ServiceName, entity?: string, id?: string): string {
  assertService(service);
  if (entity === undefined) {
    if (id !== undefined) throw new Error('An event pattern with an id names its entity');
    return `${EVENT_PREFIX}.${service}.>`;
  }
  assertToken('entity', entity);
  if (id !== undefined) assertToken('id', id);
  return `${EVENT_PREFIX}.${service}.${entity}.${id ?? '*'}.*`;
}

/** The parts of an event subject. */
export interface EventSubjectParts {
  service: ServiceName;
  entity: string;
  id: string;
  event: string;
}

/** Reads an event subject built by {@link eventSubject}; undefined for any other subject. */
export function parseEventSubject(subject: string): EventSubjectParts | undefined {
  const parts = subject.split('.');
  if (parts.length !== 6 || `${parts[0]}.${parts[1]}` !== EVENT_PREFIX) return undefined;
  const [, , service, entity, id, event] = parts as [string, string, string, string, string, string];
  if (!isServiceName(service)) return undefined;
  return { service, entity, id, event };
}

/**
 * A signal subject of the platform, `nap.sys.<area>.<name>` (for example the workflow engine's
 * wake-up, `systemSubject('workflow', 'wake')`, or one process's metrics, `systemSubject('metrics', instanceId)`).
 */
export function systemSubject(area: string, name: string): string {
  assertToken('area', area);
  assertToken('name', name);
  return `${SYSTEM_PREFIX}.${area}.${name}`;
}

/** A pattern over the signals of one area, `nap.sys.<area>.*`. */
export function systemPattern(area: string): string {
  assertToken('area', area);
  return `${SYSTEM_PREFIX}.${area}.*`;
}

/**
 * The control subject of one replica of a service, `nap.sys.control.<instance>`: the admin service
 * sends it commands (status, pause or resume, log level, live settings, indexes) and the replica
 * answers, whether it takes requests or not.
 */
export function controlSubject(instance: string): string {
  return systemSubject('control', instance);
}

/**
 * Where a replica asks, before it registers, what the admin service wants of its service (stopped,
 * log level, live settings), `nap.sys.applications.desired`: a replica of a stopped application
 * starts paused. One admin replica answers (queue group).
 */
export function desiredStateSubject(): string {
  return systemSubject('applications', 'desired');
}
