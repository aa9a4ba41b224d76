/**
 * What a person wrote in a form whose sending found their session ended (logged out in another
 * tab, expired): kept in this tab's memory, never in storage (a job's variables may hold secrets),
 * and given back to the same person when they log in again and come back to the same page. A
 * reload of the page, or another person logging in, loses it.
 */

interface Draft {
  /** What the form is (`run-workflow:<stored name>`). */
  key: string;
  /** Whose it is: the caller when it was written. */
  username: string | undefined;
  value: unknown;
}

let kept: Draft | undefined;

/** The forms whose content is kept: a workflow's Run dialog, and the Run dialog of an automation's trigger (the draft names the trigger). */
export const draftKeys = {
  runWorkflow: (storedName: string) => `run-workflow:${storedName}`,
  runTrigger: 'run-trigger',
};

/** Keeps what a form is about to send, until {@link settleDraft} says it was answered (one form at a time). */
export function keepDraft(key: string, username: string | undefined, value: unknown): void {
  kept = { key, username, value };
}

/** The form was answered (started, or refused for another reason than the session): nothing to give back. */
export function settleDraft(key: string): void {
  if (kept?.key === key) kept = undefined;
}

/** True while a form's unsent content is kept (the log-in page says it will come back). */
export function hasDraft(): boolean {
  return kept !== undefined;
}

/**
 * What `username` wrote in the form `key`; undefined when nothing is kept for them. The form that
 * shows it again settles it ({@link settleDraft}) once shown: reading it twice is harmless.
 */
export function peekDraft<T>(key: string, username: string | undefined): T | undefined {
  if (kept === undefined || kept.key !== key || kept.username !== username) return undefined;
  return kept.value as T;
}

/** Forgets what is kept (someone else logged in). */
export function dropDrafts(): void {
  kept = undefined;
}
