import { createHash, randomBytes } from 'node:crypto';
import {
  AppError,
  EVENTS,
  MISSED_RUN_POLICIES,
  REPEAT_UNITS,
  ROUTE_NAME_PATTERN,
  TRIGGER_SERVICE_MEMBERS,
  TRIGGER_TYPES,
  checkNotReservedKey,
  checkPrintableName,
  holdsMask,
  maskDeclaredPaths,
  parseAs,
  redactSecrets,
  restoreDeclaredPaths,
  restoreMasked,
  triggerInputSchema,
} from '@nap/contracts';
import type { Caller, MissedRunPolicy, RepeatUnit, Trigger, TriggerInput, ValidationProblem } from '@nap/contracts';
import { isRecord } from '@nap/util';
import { cloneJson } from './builtins/types';

/**
 * Triggers as the operations manager keeps them: checking what a client submits (by type, naming
 * the member), the stored record, and the arithmetic of schedules (due times, missed runs).
 */

/** The claim on a schedule's due time: which engine replica fires it, since when (a lease, as on jobs). */
export interface FireClaim {
  serverId: string;
  claimTime: number;
  due: number;
}

/** Why a schedule or event trigger last failed to start its automation: when (epoch ms), the error code and message. */
export interface TriggerError {
  at: number;
  code: string;
  message: string;
}

/** A trigger as stored: the trigger, who it runs as (never answered), and a schedule's claim. */
export type TriggerRecord = Trigger & {
  /** Set by the service when the trigger failed to start its automation on its own; removed by its next start or change. */
  lastError?: TriggerError;
  _id: string;
  /** The caller that jobs started by schedule and event triggers act as: the creator, with the roles and groups they had. */
  runAs?: Caller;
  /**
   * The members of `formData` its form declares secret whatever their names (`format: "password"`,
   * `writeOnly`), as paths: read from the form when the trigger is stored, sealed and masked like
   * those of secret names. Never answered.
   */
  secretPaths?: string[][];
  /** A schedule's due time being fired (the lease on it). */
  fire?: FireClaim;
};

const ROUTE_NAME = new RegExp(ROUTE_NAME_PATTERN);
/** A kept `_id`: letters, digits, `_` and `-`, up to 64 (Mongo ObjectIds and UUIDs are). */
const KEEPABLE_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Members the service sets; a submitted value is ignored. */
const SERVICE_MEMBERS = TRIGGER_SERVICE_MEMBERS;
/** Members of one type only: dropped from the other types so that a record says what it does. */
const TYPE_MEMBERS: Record<Trigger['type'], readonly string[]> = {
  endpoint: ['routeName', 'verb', 'schema', 'jst'],
  manual: ['formId', 'formData'],
  schedule: [
    'formId',
    'formData',
    'firstRunAt',
    'repeatUnit',
    'repeatFrequency',
    'repeatInterval',
    'processMissedRuns',
    'nextRunAt',
    'lastRunAt',
  ],
  eventSystem: ['source', 'topic', 'schema', 'jst'],
};
const ALL_TYPE_MEMBERS = new Set(Object.values(TYPE_MEMBERS).flat());

/** The latest due time a schedule may name: the last millisecond a JavaScript date holds is far beyond; year 9999 is plenty. */
const MAX_EPOCH_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
/** The longest time between two due times: 100 years. */
const MAX_REPEAT_MS = 100 * 366 * 86_400_000;

/** Fixed lengths of the repeat units in milliseconds (a month is calendar arithmetic, see {@link nextDue}). */
const UNIT_MS: Record<Exclude<RepeatUnit, 'month'>, number> = {
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
};

function invalid(member: string, message: string): AppError {
  const problem: ValidationProblem = { member, message: `${member} ${message}` };
  return new AppError('VALIDATION_FAILED', problem.message, { details: [problem] });
}

/** Members a client may send in a change of a trigger: the trigger's own, and those the service sets (ignored). */
const CHANGEABLE_MEMBERS = new Set([...Object.keys(triggerInputSchema.properties), ...SERVICE_MEMBERS]);

/**
 * Refuses a change of a trigger that names a member no trigger has (400 VALIDATION_FAILED naming it):
 * it would be stored and answered as if it meant something, and `{ trigger: … }` (the form creation
 * takes) would change nothing while answering success.
 */
export function assertKnownChanges(changes: Record<string, unknown>, member: string): void {
  const unknown = Object.keys(changes).filter((key) => !CHANGEABLE_MEMBERS.has(key));
  if (unknown.length === 0) return;
  const problems: ValidationProblem[] = unknown.map((key) => ({
    member: `${member}.${key}`,
    message:
      key === 'trigger' || key === 'changes'
        ? `${member}.${key} is not a member of a trigger: send the members to change themselves (or { "changes": { … } } alone)`
        : `${member}.${key} is not a member of a trigger`,
  }));
  throw new AppError('VALIDATION_FAILED', problems.map((p) => p.message).join('; '), { details: problems });
}

/** The submitted trigger: the body itself, or `{ trigger: … }` as some clients send it. */
export function unwrapTrigger(body: Record<string, unknown>): { input: Record<string, unknown>; member: string } {
  if (isRecord(body.trigger) && body.type === undefined) return { input: body.trigger, member: 'body.trigger' };
  return { input: body, member: 'body' };
}

/** The event a topic names: `jobComplete`, or `<service>.<entity>.<event>` (`workflow.job.jobComplete`). */
export function eventOfTopic(topic: string, source?: string): { service: string; entity: string; event: string } | undefined {
  const parts = topic.split('.');
  const found =
    parts.length === 3
      ? EVENTS.find((e) => e.service === parts[0] && e.entity === parts[1] && e.event === parts[2])
      : EVENTS.find((e) => e.event === topic && (source === undefined || source === '' || e.service === source));
  return found === undefined ? undefined : { service: found.service, entity: found.entity, event: found.event };
}

/**
 * A trigger being imported as another platform exported it: an event trigger on an event this
 * platform does not publish (an adapter's, such as a Kafka topic) comes in disabled, with a note
 * saying so, rather than refusing what it belongs to; everything else as it is.
 */
export function asImported(submitted: Record<string, unknown>): { trigger: Record<string, unknown>; note?: string } {
  if (submitted.type !== 'eventSystem' || submitted.enabled === false || typeof submitted.topic !== 'string' || submitted.topic === '')
    return { trigger: submitted };
  const source = typeof submitted.source === 'string' ? submitted.source : undefined;
  if (eventOfTopic(submitted.topic, source) !== undefined) return { trigger: submitted };
  const name = typeof submitted.name === 'string' ? submitted.name : '';
  return {
    trigger: { ...submitted, enabled: false },
    note: `trigger "${name}" was imported disabled: "${submitted.topic}"${source ? ` of "${source}"` : ''} is no event this platform publishes`,
  };
}

/**
 * Checks a submitted trigger and makes the record to store: the members of its type (checked,
 * naming the member), the audit members, `runAs` (the caller), and for a schedule its first due
 * time. `existing` is the stored trigger an update starts from. Throws 400 VALIDATION_FAILED.
 */
export function toTriggerRecord(
  submitted: Record<string, unknown>,
  member: string,
  caller: Caller,
  now: number,
  options: { existing?: TriggerRecord; newId: () => string; keepId?: boolean },
): TriggerRecord {
  const { existing } = options;
  // the name given, not one stored before the rule: changing another member of such a trigger still works
  if (typeof submitted.name === 'string') checkPrintableName(submitted.name, `${member}.name`);
  // a trigger read (its secrets masked), changed and written back keeps the secrets stored
  const given =
    isRecord(submitted.formData) && holdsMask(submitted.formData)
      ? {
          ...submitted,
          formData: restoreMasked(
            restoreDeclaredPaths(submitted.formData, existing?.formData, existing?.secretPaths ?? [], `${member}.formData`, 'the trigger'),
            existing?.formData,
            `${member}.formData`,
            'the trigger',
          ),
        }
      : submitted;
  const input: TriggerInput = parseAs(triggerInputSchema, { ...(existing ? stripService(existing) : {}), ...stripService(given) }, member);
  if (existing && input.type !== existing.type)
    throw invalid(`${member}.type`, `cannot change from ${existing.type} to ${input.type}; create a new trigger`);
  if (!(TRIGGER_TYPES as readonly string[]).includes(input.type))
    throw invalid(`${member}.type`, `must be one of ${TRIGGER_TYPES.join(', ')}`);
  const own = new Set(TYPE_MEMBERS[input.type]);
  const record: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) if (!ALL_TYPE_MEMBERS.has(key) || own.has(key)) record[key] = cloneJson(value);
  const at = new Date(now).toISOString();
  if (existing === undefined && options.keepId === true) checkNotReservedKey(input._id, `${member}._id`);
  const id =
    existing?._id ??
    (options.keepId === true && typeof input._id === 'string' && KEEPABLE_ID.test(input._id) ? input._id : options.newId());
  const out: TriggerRecord = {
    ...record,
    _id: id,
    name: input.name.trim(),
    description: input.description ?? '',
    type: input.type,
    enabled: input.enabled ?? true,
    actionType: 'automations',
    actionId: input.actionId,
    created: existing?.created ?? at,
    createdBy: existing?.createdBy ?? caller.username,
    lastUpdated: at,
    lastUpdatedBy: caller.username,
    // a trigger acts as whoever made it what it is: its creator, or the last account that changed it
    runAs: runAsOf(caller),
  };
  if (out.name === '') throw invalid(`${member}.name`, 'must not be empty');
  switch (input.type) {
    case 'endpoint':
      checkEndpoint(out, member);
      break;
    case 'schedule':
      checkSchedule(out, member, now, existing);
      break;
    case 'eventSystem':
      checkEvent(out, member);
      break;
    case 'manual':
      out.formData = isRecord(out.formData) ? out.formData : {};
      break;
  }
  if (existing?.lastExecuted !== undefined) out.lastExecuted = existing.lastExecuted;
  return out;
}

/** Members that another platform's export writes as `null` when a trigger has none: taken as absent. */
const NULL_AS_ABSENT = ['schema', 'jst', 'formId'] as const;

function stripService(doc: Record<string, unknown>): Record<string, unknown> {
  const out = { ...doc };
  for (const key of SERVICE_MEMBERS) delete out[key];
  // read from the trigger's form each time it is stored, never taken from a client
  delete out.secretPaths;
  for (const key of NULL_AS_ABSENT) if (out[key] === null) delete out[key];
  return out;
}

function checkJsonSchema(schema: unknown, member: string): void {
  if (schema === undefined) return;
  if (!isRecord(schema)) throw invalid(member, 'must be a JSON Schema object');
}

function checkEndpoint(t: TriggerRecord, member: string): void {
  if (typeof t.routeName !== 'string' || !ROUTE_NAME.test(t.routeName)) {
    throw invalid(
      `${member}.routeName`,
      'is required for an endpoint trigger: one URL path segment of letters, digits, ".", "_", "~" and "-"',
    );
  }
  t.verb = 'POST';
  checkJsonSchema(t.schema, `${member}.schema`);
  t.schema = t.schema ?? { type: 'object', properties: {}, additionalProperties: true };
  checkJst(t.jst, `${member}.jst`);
}

function checkJst(jst: unknown, member: string): void {
  if (jst === undefined || jst === null || jst === '') return;
  if (transformationIdOf(jst) === undefined) throw invalid(member, 'must be a transformation id or a transformation document with an _id');
}

/** The transformation id of a trigger's `jst`: the id itself, or the `_id` of an embedded document. */
export function transformationIdOf(jst: unknown): string | undefined {
  if (typeof jst === 'string' && jst !== '') return jst;
  if (isRecord(jst) && typeof jst._id === 'string' && jst._id !== '') return jst._id;
  return undefined;
}

function checkEvent(t: TriggerRecord, member: string): void {
  if (typeof t.topic !== 'string' || t.topic === '')
    throw invalid(
      `${member}.topic`,
      'is required for an eventSystem trigger: an event name such as jobComplete, or <service>.<entity>.<event>',
    );
  const event = eventOfTopic(t.topic, t.source);
  if (event === undefined && t.enabled === false) {
    // kept as another platform exported it (an adapter's event, say): it cannot fire, and enabling it is refused here
    checkJsonSchema(t.schema, `${member}.schema`);
    checkJst(t.jst, `${member}.jst`);
    return;
  }
  if (event === undefined) {
    throw invalid(
      `${member}.topic`,
      `"${t.topic}" names no event of the platform${t.source ? ` published by "${t.source}"` : ''}; events: ${EVENTS.map((e) => e.event).join(', ')}`,
    );
  }
  t.source = event.service;
  checkJsonSchema(t.schema, `${member}.schema`);
  t.schema = t.schema ?? { type: 'object', properties: {}, additionalProperties: true };
  checkJst(t.jst, `${member}.jst`);
}

function checkSchedule(t: TriggerRecord, member: string, now: number, existing: TriggerRecord | undefined): void {
  if (t.firstRunAt === undefined || t.firstRunAt === null)
    throw invalid(`${member}.firstRunAt`, 'is required for a schedule trigger: the first due time, epoch milliseconds');
  if (typeof t.firstRunAt !== 'number' || !Number.isInteger(t.firstRunAt) || t.firstRunAt < 0 || t.firstRunAt > MAX_EPOCH_MS)
    throw invalid(
      `${member}.firstRunAt`,
      `must be a time in epoch milliseconds from 0 to ${MAX_EPOCH_MS} (${new Date(MAX_EPOCH_MS).toISOString()}); ${JSON.stringify(t.firstRunAt)} is not`,
    );
  const unit = t.repeatUnit ?? null;
  if (unit !== null && !(REPEAT_UNITS as readonly string[]).includes(unit))
    throw invalid(`${member}.repeatUnit`, `must be one of ${REPEAT_UNITS.join(', ')}, or null for a single run`);
  t.repeatUnit = unit;
  if (unit !== null) {
    const frequency = t.repeatFrequency ?? 1;
    const most = Math.floor(MAX_REPEAT_MS / (unit === 'month' ? 30 * UNIT_MS.day : UNIT_MS[unit]));
    if (!Number.isInteger(frequency) || frequency < 1 || frequency > most)
      throw invalid(`${member}.repeatFrequency`, `must be an integer from 1 to ${most} (${unit}s between due times, 100 years at most)`);
    t.repeatFrequency = frequency;
    t.repeatInterval = unit === 'month' ? frequency * 30 * UNIT_MS.day : frequency * UNIT_MS[unit];
  } else {
    delete t.repeatFrequency;
    delete t.repeatInterval;
  }
  const policy = t.processMissedRuns ?? 'none';
  if (!(MISSED_RUN_POLICIES as readonly string[]).includes(policy))
    throw invalid(`${member}.processMissedRuns`, `must be one of ${MISSED_RUN_POLICIES.join(', ')}`);
  t.processMissedRuns = policy;
  t.formData = isRecord(t.formData) ? t.formData : {};
  const timingChanged =
    existing === undefined ||
    existing.firstRunAt !== t.firstRunAt ||
    existing.repeatUnit !== t.repeatUnit ||
    existing.repeatFrequency !== t.repeatFrequency;
  if (timingChanged) {
    // a new timing starts at its first due time, or the first one still ahead when that is long past
    t.nextRunAt = t.firstRunAt >= now || unit === null ? t.firstRunAt : dueAtOrAfter(t, t.firstRunAt, now);
    t.lastRunAt = null;
    return;
  }
  t.lastRunAt = existing.lastRunAt ?? null;
  const next = existing.nextRunAt ?? null;
  if (existing.enabled === false && t.enabled && next !== null && next < now) {
    // enabled again: the due times that came while it was disabled were skipped on purpose (a change
    // freeze, say), not missed, so none of them fires; it resumes at its first due time from now
    t.nextRunAt = unit === null ? null : dueAtOrAfter(t, next, now);
    return;
  }
  t.nextRunAt = next;
}

/** The due time after `due` of a schedule, or null when it does not repeat. Months are calendar months (UTC). */
export function nextDue(t: Pick<Trigger, 'repeatUnit' | 'repeatFrequency'>, due: number): number | null {
  const unit = t.repeatUnit ?? null;
  if (unit === null) return null;
  const frequency = t.repeatFrequency ?? 1;
  if (unit === 'month') {
    const d = new Date(due);
    d.setUTCMonth(d.getUTCMonth() + frequency);
    return d.getTime();
  }
  return due + frequency * UNIT_MS[unit];
}

/** The first due time of a schedule at or after `at`, counting from its due time `from`. */
function dueAtOrAfter(t: Pick<Trigger, 'repeatUnit' | 'repeatFrequency'>, from: number, at: number): number {
  let due = from;
  if (t.repeatUnit !== 'month' && t.repeatUnit) {
    const step = (t.repeatFrequency ?? 1) * UNIT_MS[t.repeatUnit];
    if (due < at) due += Math.ceil((at - due) / step) * step;
    return due;
  }
  for (let next = nextDue(t, due); due < at && next !== null; next = nextDue(t, due)) due = next;
  return due;
}

/** Due times a schedule fires for at most in one go (processMissedRuns all after a long stop). */
export const MAX_FIRES_PER_CLAIM = 100;

/**
 * Which due times of a schedule to fire now, from its next due time `from` up to `now`, and the next
 * due time after them. A due time older than `graceMs` was missed (nothing could fire it in time):
 * `none` skips the missed ones, `last` fires the latest of them once (unless one on time fires),
 * `all` fires each (at most {@link MAX_FIRES_PER_CLAIM} at a time; the rest follow).
 */
export function duesToFire(
  t: Pick<Trigger, 'repeatUnit' | 'repeatFrequency' | 'processMissedRuns'>,
  from: number,
  now: number,
  graceMs: number,
): { fire: number[]; next: number | null } {
  const policy: MissedRunPolicy = t.processMissedRuns ?? 'none';
  const missed: number[] = [];
  const onTime: number[] = [];
  let due: number | null = from;
  while (due !== null && due <= now) {
    if (now - due > graceMs) missed.push(due);
    else onTime.push(due);
    due = nextDue(t, due);
    if (policy === 'all' && missed.length + onTime.length >= MAX_FIRES_PER_CLAIM) break;
    if (missed.length > 1_000_000) break;
  }
  let fire: number[];
  if (policy === 'all') fire = [...missed, ...onTime];
  else if (policy === 'last' && onTime.length === 0 && missed.length > 0) fire = [missed[missed.length - 1] as number];
  else fire = onTime;
  return { fire, next: due };
}

/**
 * The id of the job a trigger starts for one occasion (a schedule's due time, an event's stream
 * position): 24 hex digits like every job id, the occasion's seconds first so ids still sort by
 * time, the rest from a hash of trigger and occasion. Two replicas firing the same occasion make
 * the same id, and the store's unique `_id` lets only one job be created.
 */
export function occasionJobId(triggerId: string, occasion: string, atMs: number): string {
  const seconds = Math.floor(atMs / 1000)
    .toString(16)
    .padStart(8, '0')
    .slice(-8);
  return `${seconds}${createHash('sha256').update(`${triggerId}\u0000${occasion}`).digest('hex').slice(0, 16)}`;
}

/** A new trigger id: 24 hex digits (the form existing exports use). */
export function newTriggerId(): string {
  return `${Math.floor(Date.now() / 1000)
    .toString(16)
    .padStart(8, '0')}${randomBytes(8).toString('hex')}`;
}

/** The trigger as the interface shows it: who it runs as and a schedule's claim stay inside. */
export function toPublicTrigger(t: TriggerRecord): Trigger {
  const { runAs: _runAs, fire: _fire, secretPaths, ...out } = t;
  // the variables it starts jobs with may hold secrets (a device password): answered and exported masked
  return isRecord(out.formData) ? { ...out, formData: maskedFormData(out.formData, secretPaths) } : out;
}

/** A trigger's formData with its secrets masked: those of secret names, and those its form declares (`secretPaths`). */
export function maskedFormData(formData: Record<string, unknown>, secretPaths: readonly string[][] | undefined): Record<string, unknown> {
  return maskDeclaredPaths(redactSecrets(formData), secretPaths ?? []);
}

/** The trigger as export gives it (and import takes it back): the public record without what the service computes. */
export function toExportedTrigger(t: TriggerRecord): Trigger {
  const { lastError: _error, ...rest } = t;
  const { nextRunAt: _next, lastRunAt: _last, lastExecuted: _executed, ...out } = toPublicTrigger(rest);
  return out;
}

/** The identity a trigger acts as once `caller` made it what it is (roles and groups as they are now). */
export function runAsOf(caller: Caller): Caller {
  return { id: caller.id, username: caller.username, roles: [...caller.roles], groups: [...caller.groups] };
}

/** True for a schedule or event trigger: it starts jobs on its own, as its `runAs` (when enabled). */
export function actsOnItsOwn(trigger: Pick<TriggerRecord, 'type'>): boolean {
  return trigger.type === 'schedule' || trigger.type === 'eventSystem';
}

/** True for an enabled schedule or event trigger: it starts jobs on its own, as its `runAs`. */
export function runsAsItsOwner(trigger: Pick<Trigger, 'type' | 'enabled'>): boolean {
  return trigger.enabled !== false && (trigger.type === 'schedule' || trigger.type === 'eventSystem');
}

/** Refuses to run a disabled trigger: 409 TRIGGER_DISABLED. */
export function assertEnabled(trigger: TriggerRecord): void {
  if (trigger.enabled === false)
    throw new AppError('TRIGGER_DISABLED', `Trigger "${trigger.name}" is disabled; enable it (PATCH enabled: true) to run it`);
}
