import type { Static } from '@sinclair/typebox';
import {
  anyObject,
  anyValue,
  arr,
  bool,
  describedPattern,
  embed,
  epochMs,
  int,
  literal,
  name,
  nullable,
  oneOf,
  open,
  str,
  timestamp,
  withId,
} from './common';
import { envelopeOf, envelopePageOf } from './envelope';
import { automationDocumentProperties, importResultItemSchema, importResultSchema } from './automation';

/**
 * Triggers of the operations manager: what starts an automation's workflow. Four types: `endpoint`
 * (an HTTP route of its own), `manual` (a person submits a form), `schedule` (a due time, repeated)
 * and `eventSystem` (a platform event).
 */

/** Types of trigger. */
export const TRIGGER_TYPES = ['endpoint', 'manual', 'schedule', 'eventSystem'] as const;
/** One of {@link TRIGGER_TYPES}. */
export type TriggerType = (typeof TRIGGER_TYPES)[number];

/** Units of a schedule's repeat; the interval is `repeatFrequency` of them. */
export const REPEAT_UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month'] as const;
/** One of {@link REPEAT_UNITS}. */
export type RepeatUnit = (typeof REPEAT_UNITS)[number];

/**
 * What a schedule does with the due times that passed while no engine could fire them (the platform
 * was down): `none` skips them, `last` fires the latest once, `all` fires each.
 */
export const MISSED_RUN_POLICIES = ['none', 'last', 'all'] as const;
/** One of {@link MISSED_RUN_POLICIES}. */
export type MissedRunPolicy = (typeof MISSED_RUN_POLICIES)[number];

/** A route name of an endpoint trigger: one URL path segment. */
export const ROUTE_NAME_PATTERN = describedPattern(
  '^[A-Za-z0-9._~-]+$',
  'one URL path segment of letters, digits and . _ ~ -, such as nightly-backup',
);

function triggerProperties() {
  return {
    _id: str({ description: 'record id' }),
    name: name('trigger name'),
    description: str(),
    type: oneOf(TRIGGER_TYPES),
    enabled: bool({
      description:
        'a disabled trigger refuses to run (409 TRIGGER_DISABLED) and a schedule does not fire: its due times that come while it is disabled are skipped, and enabled again it resumes at its next due time',
    }),
    actionType: literal('automations'),
    actionId: name('id of the automation the trigger starts'),
    // endpoint
    routeName: str({
      pattern: ROUTE_NAME_PATTERN,
      description: 'endpoint: POST /operations-manager/triggers/endpoint/<routeName>; unique',
    }),
    verb: oneOf(['POST'], { description: 'endpoint: HTTP method of the route' }),
    schema: anyObject(
      'endpoint, eventSystem: JSON Schema that the body (the event payload) must match; null (as other platforms export a trigger without one) is taken as none',
    ),
    jst: anyValue({
      description:
        'endpoint, eventSystem: a transformation (its id, or a document with _id) applied to the body; its outgoing values become the job variables',
    }),
    // manual, schedule
    formId: str({ description: 'manual, schedule: the form whose data the job receives; null is taken as none' }),
    formData: nullable(
      anyObject(
        'schedule: the job variables; manual: default values; null (as the platform exports a manual trigger without defaults) is stored as {}',
      ),
    ),
    // schedule
    firstRunAt: epochMs('schedule: the first due time, epoch milliseconds'),
    repeatUnit: nullable(oneOf(REPEAT_UNITS, { description: 'schedule: unit of the repeat; null or absent: fires once' })),
    repeatFrequency: int({ minimum: 1, description: 'schedule: number of units between due times' }),
    repeatInterval: int({ minimum: 0, description: 'schedule: milliseconds between due times (months vary; derived by the service)' }),
    processMissedRuns: oneOf(MISSED_RUN_POLICIES, {
      description: 'schedule: what to do with due times that passed while nothing could fire them',
    }),
    nextRunAt: nullable(epochMs('schedule: the next due time; null when it will not fire again (set by the service)')),
    lastRunAt: nullable(epochMs('schedule: the last due time it fired for (set by the service)')),
    // eventSystem
    source: str({
      description: 'eventSystem: the service that publishes the event (workflow, admin, mop); derived from topic when absent',
    }),
    topic: str({ description: 'eventSystem: the event name (jobComplete, jobError, …) or <service>.<entity>.<event>' }),
    lastExecuted: nullable(epochMs('when the trigger last started a job (set by the service)')),
    lastError: open(
      {
        at: epochMs('when the start failed'),
        code: str({ description: 'the error code (for example ACCOUNT_INACTIVE, GROUP_ACCESS_DENIED)' }),
        message: str(),
      },
      ['at', 'code', 'message'],
      {
        description:
          'schedule and eventSystem: why the trigger last failed to start its automation on its own (set by the service; removed by its next start or change)',
      },
    ),
  };
}

function audit() {
  return { created: timestamp(), createdBy: str(), lastUpdated: timestamp(), lastUpdatedBy: str() };
}

/** A trigger as a client submits it; type-specific members are checked by the service, naming the member. */
export const triggerInputSchema = withId('nap:schemas/trigger-input', open(triggerProperties(), ['name', 'type', 'actionId']));
/** A trigger as a client submits it. */
export type TriggerInput = Static<typeof triggerInputSchema>;

/** A trigger as stored and answered. */
export const triggerSchema = withId(
  'nap:schemas/trigger',
  open({ ...triggerProperties(), ...audit() }, [
    '_id',
    'name',
    'type',
    'enabled',
    'actionType',
    'actionId',
    'created',
    'createdBy',
    'lastUpdated',
    'lastUpdatedBy',
  ]),
);
/** A trigger of the operations manager. */
export type Trigger = Static<typeof triggerSchema>;

/** `{ message, data: trigger, metadata }`. */
export const triggerEnvelopeSchema = envelopeOf('nap:schemas/trigger-envelope', embed(triggerSchema));
/**
 * An automation of the operations manager with its triggers, as `GET …/automations/:id/export` gives
 * it and `PUT /operations-manager/automations` takes it back (the shape other platforms export).
 */
export const automationWithTriggersSchema = withId(
  'nap:schemas/automation-with-triggers',
  open({ ...automationDocumentProperties(), triggers: arr(embed(triggerSchema)) }, ['_id', 'name', 'triggers']),
);
/** An automation with its triggers. */
export type AutomationWithTriggers = Static<typeof automationWithTriggersSchema>;
/** `{ message, data: automation with its triggers, metadata }`. */
export const automationExportEnvelopeSchema = envelopeOf('nap:schemas/automation-export-envelope', embed(automationWithTriggersSchema));

/** A page of triggers: `{ message, data, metadata: { total, … } }`. */
export const triggerPageSchema = envelopePageOf('nap:schemas/trigger-page', embed(triggerSchema));

/** Outcome of `PUT /operations-manager/triggers` (import): one item per trigger. */
export const triggerImportResultSchema = importResultSchema(
  'nap:schemas/trigger-import-result',
  importResultItemSchema(anyObject('the submitted trigger'), embed(triggerSchema)),
);

/** `{ deleted }` of the deletions of the operations manager. */
export const deletedCountSchema = withId(
  'nap:schemas/deleted-count',
  open({ deleted: int({ minimum: 0, description: 'number of records deleted' }) }, ['deleted']),
);
