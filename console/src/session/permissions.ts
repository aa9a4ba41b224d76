import type { Operations, ROLE_SETS } from '@nap/contracts';

/** The actions the console offers, by the catalog operation that carries each out. */
export type ActionOperation =
  | 'workflow.cancelJobs'
  | 'workflow.pauseJob'
  | 'workflow.resumeJob'
  | 'workflow.finishTask'
  | 'workflow.retryTask'
  | 'workflow.runManualTrigger';

/** The catalog's "run" role set (`ROLE_SETS.run`): the compiler refuses a list that differs from it. */
const RUN: (typeof ROLE_SETS)['run'] = ['admin', 'engineering', 'operations', 'apiwrite'];

/**
 * The roles each action's operation allows. The catalog keeps them as data the bundle must not
 * carry (it is server code), so they are written here; `console/test/permissions.test.ts` checks
 * them against the catalog.
 */
export const ACTION_ROLES: { readonly [Id in ActionOperation]: Operations[Id]['roles'] } = {
  'workflow.cancelJobs': RUN,
  'workflow.pauseJob': RUN,
  'workflow.resumeJob': RUN,
  'workflow.finishTask': RUN,
  'workflow.retryTask': RUN,
  'workflow.runManualTrigger': RUN,
};

/**
 * True when the caller's roles let them take the action: the console does not offer what the
 * platform would refuse (the platform still decides).
 */
export function mayCall(roles: readonly string[] | undefined, operation: ActionOperation): boolean {
  const allowed: readonly string[] = ACTION_ROLES[operation];
  return (roles ?? []).some((role) => allowed.includes(role));
}
