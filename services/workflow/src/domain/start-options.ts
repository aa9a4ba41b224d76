import { AppError, closestName, startJobWithOptionsBodySchema } from '@nap/contracts';
import type { StartJobWithOptionsBody, ValidationProblem } from '@nap/contracts';

/** The members of a start's `options` the engine reads (description, type, variables, groups, pinned), from the schema itself. */
const OPTION_MEMBERS: readonly string[] = Object.keys(
  (startJobWithOptionsBodySchema.properties.options as unknown as { properties: Record<string, unknown> }).properties,
);

/**
 * Refuses the members of a start's `options` that misspell one the engine reads (`varibles`,
 * `groupz`, `Variables`): as written they would do nothing, and the job would start without the
 * variables or groups meant. 400 `VALIDATION_FAILED`, one problem per member, named
 * `body.options.<member>` with the member meant. Any other member is ignored as before: the schema
 * leaves `options` open, and clients of the original platform may send members NAP does not read.
 */
export function assertNoMisspelledOptions(options: StartJobWithOptionsBody['options']): void {
  const problems: ValidationProblem[] = [];
  for (const member of Object.keys(options)) {
    const meant = closestName(member, OPTION_MEMBERS);
    if (meant === undefined) continue;
    problems.push({
      member: `body.options.${member}`,
      message: `body.options.${member} is no option of a start (it would be ignored): did you mean '${meant}'?`,
      keyword: 'additionalProperties',
    });
  }
  if (problems.length > 0) throw new AppError('VALIDATION_FAILED', problems.map((p) => p.message).join('; '), { details: problems });
}
