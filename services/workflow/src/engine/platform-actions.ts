import type { Logger } from '@nap/telemetry';

/**
 * Something the platform does on its own, with no person asking: who (the platform actor), what
 * (the catalog operation it amounts to) and on what.
 */
export interface PlatformAction {
  /** The platform actor: `retention`. */
  actor: 'retention';
  /** The catalog operation the action amounts to. */
  operation: string;
  target: { kind: string; id: string; name?: string };
  /** What the action was given (the cut-off of a retention run, its statuses). */
  details?: Record<string, unknown>;
}

/**
 * Records an action of the platform's own actors. The one place the workflow service reports them:
 * until the audit trail (issue #20) gives services a way to record them, it is a structured log
 * line (`platformAction`), which the audit trail replaces here.
 */
export function recordPlatformAction(log: Logger, action: PlatformAction): void {
  log.info({ platformAction: action }, 'Platform action');
}
