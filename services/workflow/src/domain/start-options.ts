import { assertNoMisspelledMembers, startJobWithOptionsBodySchema } from '@nap/contracts';
import type { JsonSchema, StartJobWithOptionsBody } from '@nap/contracts';

/** The schema of a start's `options` (description, type, variables, groups, pinned): open, as clients send other members. */
const OPTIONS_SCHEMA = startJobWithOptionsBodySchema.properties.options as unknown as JsonSchema;

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
