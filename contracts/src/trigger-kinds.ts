/**
 * What kind of trigger started a job, in the words a person reads it in (the console's job page
 * and jobs list, `nap jobs describe`), and which members of a trigger the platform sets itself.
 * Pure: no imports, so that the console and the CLI may carry it.
 */

const TRIGGER_KINDS: Readonly<Record<string, string>> = {
  schedule: 'schedule',
  endpoint: 'endpoint trigger',
  manual: 'manual trigger',
  eventSystem: 'event trigger',
};

/** `schedule`, `endpoint trigger`, `manual trigger`, `event trigger`; `<type> trigger` for a type of another platform. */
export function triggerKind(type: string): string {
  return TRIGGER_KINDS[type] ?? `${type} trigger`;
}

/**
 * Members of a trigger that the platform sets on every save (stamps, schedule state, who it runs
 * as): a value submitted for one is ignored, and a file a trigger is imported from does not set them.
 */
export const TRIGGER_SERVICE_MEMBERS = [
  'created',
  'createdBy',
  'lastUpdated',
  'lastUpdatedBy',
  'nextRunAt',
  'lastRunAt',
  'lastExecuted',
  'repeatInterval',
  'runAs',
  'fire',
  'lastError',
] as const;
