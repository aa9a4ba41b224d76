import { AppError, auditChanges } from '@nap/contracts';
import type { AuditChange, Caller } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import { changedAfter } from '@nap/util';
import { assertGroupsExist } from '../context';
import type { WorkflowContext } from '../context';
import { gbacGroupIds, mayAccessAutomation, toUpdatedAutomation } from '../domain/automations';
import type { StoredAutomation } from '../domain/automations';
import { actsOnItsOwn, runAsOf } from '../domain/trigger-model';

/**
 * `PATCH /operations-manager/automations/:id` (Itential's updateAutomation): the members given
 * change, the others stay. The caller must be allowed to change the automation (its gbac write
 * groups) and to run a workflow it points the automation at (403 GROUP_ACCESS_DENIED: the
 * automation's schedules and event triggers run as whoever last changed them, not as the caller);
 * a new gbac is checked as on creation. Its id stays, so its triggers keep starting it.
 */
export function updateAutomation(svc: WorkflowContext): Handler<'workflow.updateAutomation'> {
  return async (input, ctx) => {
    // read, check, write only if unchanged meanwhile: a concurrent change (another PATCH, a gbac that
    // takes the caller's access away) is never written over
    for (let attempt = 1; ; attempt++) {
      const existing = await svc.automations.accessibleAutomation(input.params.id, ctx.caller, 'write');
      const next = toUpdatedAutomation(existing, input.body, ctx.caller, Date.parse(changedAfter(existing.lastUpdated, Date.now())));
      if (input.body.gbac !== undefined) await assertGroupsExist(svc, gbacGroupIds(next), 'body.gbac');
      // its schedules and event triggers run as whoever last changed them: pointing it at a workflow
      // is for those who may run that workflow themselves
      const repointed =
        next.componentType !== existing.componentType ||
        next.componentName !== existing.componentName ||
        next.componentId !== existing.componentId;
      if (repointed) await svc.triggerStarter.assertMayRepoint(next, ctx.caller);
      // and they take the identity of whoever points it elsewhere, before it points there: a change by
      // another account never leaves them acting as their creator on what that account chose
      const restamped = repointed ? await restampTriggers(svc, existing, ctx.caller) : [];
      let stored: Awaited<ReturnType<typeof svc.automations.replaceAutomation>>;
      try {
        stored = await svc.automations.replaceAutomation(next, existing, (other) => mayAccessAutomation(other, ctx.caller, 'read'));
        if (stored === null) throw new AppError('AUTOMATION_NOT_FOUND', `No automation with id "${existing._id}"`);
      } catch (err) {
        const left = await restoreTriggers(svc, restamped, ctx.caller);
        throw left.length === 0 ? err : withTriggersLeft(err, left, ctx.caller);
      }
      if (stored !== 'changed') {
        const changes = [...auditChanges(existing, stored), ...restamped.map((r) => r.change)];
        ctx.audit({ target: { kind: 'automation', id: stored._id, name: stored.name }, changes });
        const runsAs =
          restamped.length === 0
            ? ''
            : `; its ${restamped.length === 1 ? 'schedule or event trigger' : `${restamped.length} schedules and event triggers`} now run${restamped.length === 1 ? 's' : ''} as ${ctx.caller.username}`;
        return { message: `Automation "${stored.name}" updated${runsAs}`, data: stored, metadata: {} };
      }
      const left = await restoreTriggers(svc, restamped, ctx.caller);
      // a trigger left acting as the caller would not be re-stamped (nor audited) by the next attempt
      if (left.length > 0)
        throw withTriggersLeft(
          new AppError('CONFLICT', `Automation "${existing.name}" changed while it was being updated; try again`),
          left,
          ctx.caller,
        );
      if (attempt >= UPDATE_ATTEMPTS)
        throw new AppError('CONFLICT', `Automation "${existing.name}" kept changing while it was being updated; try again`);
    }
  };
}

/**
 * Reads of an automation a change makes before it gives up: an attempt fails only when another
 * change landed since its read, so this many changes at once all land.
 */
const UPDATE_ATTEMPTS = 20;

/** A trigger given the identity of whoever pointed its automation elsewhere, and who it acted as before. */
interface Restamped {
  id: string;
  name: string;
  before: Caller | undefined;
  change: AuditChange;
}

/**
 * Gives the schedules and event triggers of `automation` that act as another account the identity of
 * `caller` (each only if it still acts as it was read): those changed.
 */
async function restampTriggers(svc: WorkflowContext, automation: StoredAutomation, caller: Caller): Promise<Restamped[]> {
  const restamped: Restamped[] = [];
  for (const trigger of await svc.triggers.ofAction(automation._id)) {
    if (!actsOnItsOwn(trigger) || trigger.runAs?.id === caller.id) continue;
    if (!(await svc.triggers.setRunAs(trigger._id, trigger.runAs?.id, runAsOf(caller)))) continue;
    restamped.push({
      id: trigger._id,
      name: trigger.name,
      before: trigger.runAs,
      change: { member: `triggers.${trigger._id}.runAs`, before: trigger.runAs?.username ?? null, after: caller.username },
    });
  }
  if (restamped.length > 0) svc.eventTriggers.invalidate();
  return restamped;
}

/** Tries to put a trigger back this many times before it is reported left acting as the caller. */
const RESTORE_ATTEMPTS = 3;

/**
 * Puts back who the triggers acted as (none, for one stored without), when the automation was not
 * changed after all; each only if it still acts as `caller`, so that a change made meanwhile stays.
 * The triggers that could not be put back (the store failed each try): they act as `caller`.
 */
async function restoreTriggers(svc: WorkflowContext, restamped: readonly Restamped[], caller: Caller): Promise<Restamped[]> {
  const left: Restamped[] = [];
  for (const r of restamped) {
    let restored = false;
    for (let attempt = 1; attempt <= RESTORE_ATTEMPTS && !restored; attempt++) {
      restored = await svc.triggers.setRunAs(r.id, caller.id, r.before).then(
        () => true,
        () => false,
      );
    }
    if (!restored) left.push(r);
  }
  if (restamped.length > 0) svc.eventTriggers.invalidate();
  return left;
}

/**
 * `err` (its code and status kept) telling the caller that the triggers `left` still act as them:
 * the change failed, yet their re-stamp could not be undone, and the caller must know it.
 */
function withTriggersLeft(err: unknown, left: readonly Restamped[], caller: Caller): unknown {
  if (!(err instanceof AppError)) return err;
  const names = left.map((r) => `"${r.name}"`).join(', ');
  const which = left.length === 1 ? `its schedule or event trigger ${names}` : `its schedules and event triggers ${names}`;
  return new AppError(
    err.code,
    `${err.message}; ${which} could not be given back the identity ${left.length === 1 ? 'it' : 'they'} had and now run${left.length === 1 ? 's' : ''} as ${caller.username}`,
    { status: err.status, cause: err, ...(err.details !== undefined ? { details: err.details } : {}) },
  );
}
