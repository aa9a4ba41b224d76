/**
 * What kind of trigger started a job, in the words a person reads it in (the console's job page
 * and jobs list, `nap jobs describe`). Pure: no imports, so that the console and the CLI may carry it.
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
