import { AppError, assertNoMisspelledMembers, startJobWithOptionsBodySchema } from '@nap/contracts';
import type { Caller, JsonSchema, StartJobWithOptionsBody } from '@nap/contracts';

/** The schema of a start's `options` (description, type, variables, groups, pinned): open, as clients send other members. */
const OPTIONS_SCHEMA = startJobWithOptionsBodySchema.properties.options as unknown as JsonSchema;

/** Where a start's groups are in its request, in the members errors name. */
export const START_GROUPS_MEMBER = 'body.options.groups';

/**
 * Refuses the members of a start's `options` that misspell one the engine reads (`varibles`,
 * `groupz`, `Variables`): as written they would do nothing, and the job would start without the
 * variables or groups meant. 400 `VALIDATION_FAILED`, one problem per member, named
 * `body.options.<member>` with the member meant. Any other member is ignored as before: the schema
 * leaves `options` open, and clients of the original platform may send members NAP does not read.
 */
export function assertNoMisspelledOptions(options: StartJobWithOptionsBody['options']): void {
  assertNoMisspelledMembers(OPTIONS_SCHEMA, options, 'body.options', 'option of a start');
}

/**
 * The groups a job gets from a start's `options.groups` (`given`), as `caller` may give them;
 * undefined for the workflow's groups (the job's groups decide who sees its variables and results).
 *
 * - An admin (the platform's own caller is one) gives any groups, an empty list included (a job every caller sees).
 * - Anyone else gives only groups they are in: 403 `GROUP_ACCESS_DENIED`, one detail per group
 *   they are not in (`body.options.groups[1]`), as sharing a job with another team is theirs to allow.
 * - Anyone else's empty list gives the workflow's groups, as leaving `groups` out does: a job
 *   without groups is shown to every caller, so `[]` would publish what the workflow's groups keep
 *   to themselves. It is taken rather than refused because clients of the original platform send
 *   `groups: []` on every start, meaning "no groups of my own".
 *
 * Whether an admin's groups exist is the caller's to ask of the group directory (see the workflow
 * context's `assertStartGroupsExist`); anyone else's are groups it is in. Repeated ids are given once.
 */
export function startGroups(caller: Caller, given: readonly string[] | undefined): string[] | undefined {
  if (given === undefined) return undefined;
  if (caller.roles.includes('admin')) return [...new Set(given)];
  if (given.length === 0) return undefined;
  const outside = given.flatMap((id, i) => (caller.groups.includes(id) ? [] : [{ id, member: `${START_GROUPS_MEMBER}[${i}]` }]));
  if (outside.length > 0) {
    const named = outside.map(({ id, member }) => `${member} "${id}"`).join(', ');
    throw new AppError(
      'GROUP_ACCESS_DENIED',
      `${named} ${outside.length === 1 ? 'is a group' : 'are groups'} the caller "${caller.username}" is not in; ` +
        "a job is shared only with groups its starter is in (an admin may share it with any group), or leave groups out for the workflow's",
      { details: outside.map(({ id, member }) => ({ member, message: `"${id}" is no group of the caller` })) },
    );
  }
  return [...new Set(given)];
}
