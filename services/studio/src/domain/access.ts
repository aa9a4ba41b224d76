import { AppError } from '@nap/contracts';
import type { Caller } from '@nap/contracts';
import type { Filter } from '@nap/store';

/**
 * Group-based access to studio documents that carry `groups` (workflows and forms): an empty list
 * shares the document with every caller the route's roles let in; a list of group ids limits it to
 * members of one of those groups. Callers with the admin role see and change everything.
 */

export function isAdmin(caller: Caller): boolean {
  return caller.roles.includes('admin');
}

/** True when `caller` may see and change a document shared with `groups`. */
export function canAccess(caller: Caller, groups: readonly string[] | undefined): boolean {
  if (isAdmin(caller) || groups === undefined || groups.length === 0) return true;
  return groups.some((g) => caller.groups.includes(g));
}

/**
 * Throws 403 `GROUP_ACCESS_DENIED` unless `caller` may see the document, naming it by `asked`, the id
 * or name the caller gave: a caller who may not see a document is never told its name (nor its id).
 */
export function assertAccess(caller: Caller, doc: { groups?: readonly string[] }, kind: string, asked: string): void {
  if (!canAccess(caller, doc.groups)) {
    throw new AppError('GROUP_ACCESS_DENIED', `The ${kind} "${asked}" is shared with groups you are not a member of`);
  }
}

/**
 * Throws 403 `GROUP_ACCESS_DENIED` when a caller who is not an admin would share a document only
 * with groups they are not in: they would lose access to what they just saved.
 */
export function assertAssignable(caller: Caller, groups: readonly string[] | undefined, kind: string): void {
  if (!canAccess(caller, groups)) {
    throw new AppError(
      'GROUP_ACCESS_DENIED',
      `You can only share a ${kind} with groups you are a member of; you are in none of ${JSON.stringify(groups)}`,
    );
  }
}

/** Store filter of the documents `caller` may see (empty for admins). Group ids come from the session, never from the request. */
export function accessFilter(caller: Caller): Filter {
  if (isAdmin(caller)) return {};
  return { $or: [{ groups: { $size: 0 } }, { groups: { $in: [...caller.groups] } }] };
}
