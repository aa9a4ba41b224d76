import type { Caller } from './messages';
import type { JobAudience } from './schemas/engine';

/**
 * Who may see a job, the one rule the workflow service (job reads) and the gateway (event streams)
 * share. A caller sees a job when it sees every job (an administrator, the platform itself), when
 * the job has no groups or shares one with the caller, or when the caller started the job or is the
 * one it acts as. The first two depend on the caller's roles and groups only, so that a stream with
 * many clients decides them once per group set; the last on the person.
 */

/** True for callers who see every job whatever its groups: administrators and the platform itself. */
export function seesEveryJob(caller: Pick<Caller, 'id' | 'roles'>): boolean {
  return caller.roles.includes('admin') || caller.id === 'system';
}

/** True when members of `groups` see the job by its groups: it has none, or shares one with them. */
export function audienceAdmitsGroups(audience: Pick<JobAudience, 'groups'>, groups: readonly string[]): boolean {
  return audience.groups.length === 0 || audience.groups.some((g) => groups.includes(g));
}

/** True when the caller started the job or is the caller it acts as. */
export function audienceAdmitsPerson(audience: Pick<JobAudience, 'owner' | 'runAsId'>, caller: Pick<Caller, 'id' | 'username'>): boolean {
  return (
    (audience.runAsId !== undefined && audience.runAsId === caller.id) ||
    (audience.owner !== undefined && audience.owner === caller.username)
  );
}

/** True when the caller may see a job with this audience. */
export function audienceAdmits(audience: Omit<JobAudience, 'jobId'>, caller: Caller): boolean {
  return seesEveryJob(caller) || audienceAdmitsGroups(audience, caller.groups) || audienceAdmitsPerson(audience, caller);
}
