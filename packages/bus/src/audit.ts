import type { AuditEntry, AuditPart, Caller, PlatformActor } from '@nap/contracts';
import { encodeJson } from './codec';
import type { Bus } from './types';

/** Appends entries to the platform's audit trail. */
export interface AuditRecorder {
  /**
   * Appends an entry and resolves once it is durable (see {@link Bus.appendToQueue}): JetStream
   * acknowledged it over NATS; in one process, the bus's journal kept it (without a journal, the
   * admin service stored it in the chain). The admin service chains it after. An entry recorded
   * twice with the same `entryId` is kept once.
   *
   * Errors: `SERVICE_UNAVAILABLE` when it could not be made durable.
   */
  record(entry: AuditEntry): Promise<void>;
  /**
   * Records what the platform did on its own: a schedule or event trigger starting a job, a
   * retention run. Give `occasion` an id of the occasion (the job id of a due time, the retention
   * run), so that a repeat after a crash is kept once. Resolves once durable, like `record`.
   */
  recordPlatformAction(action: PlatformAction): Promise<void>;
}

/** What a service tells the audit trail of something the platform did on its own. */
export interface PlatformAction extends AuditPart {
  /** Which of the platform's actors acted. */
  actor: PlatformActor;
  /** The account it acted for (a schedule runs as its creator), when there is one. */
  onBehalfOf?: Pick<Caller, 'id' | 'username'>;
  /** What it did, `<service>.<action>` (`workflow.runSchedule`, `admin.applyAuditRetention`). */
  operation: string;
  /** A stable id of the occasion: the same occasion recorded again (after a crash) is kept once. */
  occasion: string;
  /** How it ended; 200 when absent. A failure names its error code. */
  outcome?: { status: number; code?: string };
  /** The request that caused it, when one did. */
  requestId?: string;
}

/**
 * The audit entry of a platform action: method `PLATFORM`, the actor `{ kind: 'platform', username:
 * <actor> }` acting on behalf of the account named, entry id `<actor>:<occasion>`.
 */
export function platformAuditEntry(action: PlatformAction, now = new Date()): AuditEntry {
  const entry: AuditEntry = {
    entryId: `${action.actor}:${action.occasion}`,
    timestamp: now.toISOString(),
    actor: {
      kind: 'platform',
      username: action.actor,
      ...(action.onBehalfOf ? { onBehalfOf: action.onBehalfOf.username, accountId: action.onBehalfOf.id } : {}),
    },
    operation: action.operation,
    method: 'PLATFORM',
    outcome: action.outcome ?? { status: 200 },
  };
  if (action.target !== undefined) entry.target = action.target;
  if (action.changes !== undefined && action.changes.length > 0) entry.changes = action.changes;
  if (action.requestId !== undefined) entry.requestId = action.requestId;
  return entry;
}

/**
 * The audit trail's door for every process: the gateway records each request it must, services
 * record their platform actions (`recordPlatformAction`). Entries go to the bus's `audit` work
 * queue, which the admin service appends to the hash chain.
 */
export function createAuditRecorder(bus: Bus): AuditRecorder {
  const record = (entry: AuditEntry) => bus.appendToQueue('audit', entry.entryId, encodeJson(entry));
  return {
    record,
    recordPlatformAction: (action) => record(platformAuditEntry(action)),
  };
}
