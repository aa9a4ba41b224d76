import { AppError, isValid, parseAs, validateAgainst, workflowDocumentSchema, workflowInputSchema } from '@nap/contracts';
import type { StoredWorkflowDocument, WorkflowInput, WorkflowProblem } from '@nap/contracts';
import { nameOf } from './checked';
import { toStoredWorkflow } from './documents';
import type { OriginalStamp, SaveStamp } from './documents';
import { WORKFLOW_ERRORS, validateWorkflow } from './workflow-validation';

function describe(problems: readonly { message: string }[]): string {
  const shown = problems.slice(0, 3).map((p) => p.message);
  const more = problems.length > shown.length ? `; and ${problems.length - shown.length} more (see details)` : '';
  return `${shown.join('; ')}${more}`;
}

/**
 * Checks a submitted workflow: the shape of the catalog schema (for import items, which the gateway
 * checks only as objects), then the graph. Throws 400 `VALIDATION_FAILED` or `WORKFLOW_INVALID`
 * whose details name each problem, members prefixed with `member` (`body.automation`).
 */
export function checkWorkflow(input: unknown, member: string): { workflow: WorkflowInput; warnings: WorkflowProblem[] } {
  if (!isValid(workflowInputSchema, input)) {
    const shape = validateAgainst(workflowInputSchema, input, member);
    const details = shape.map((p) => ({ code: WORKFLOW_ERRORS.SHAPE_INVALID, ...p }));
    throw new AppError('VALIDATION_FAILED', `Workflow "${nameOf(input)}" does not have the shape of a workflow: ${describe(shape)}`, {
      details,
    });
  }
  const { errors, warnings } = validateWorkflow(input);
  if (errors.length > 0) {
    const details = errors.map((p) => ({ ...p, member: p.member === '' ? member : `${member}.${p.member}` }));
    throw new AppError('WORKFLOW_INVALID', `Workflow "${nameOf(input)}" is invalid: ${describe(errors)}`, { details });
  }
  return { workflow: input, warnings };
}

/**
 * The stored workflow made from a checked one, typed by the stored schema: `validateWorkflow` has
 * checked what that schema adds to the submitted one (task names, transition states and types), so
 * this only fails on a bug, as 400 `VALIDATION_FAILED` naming the member.
 */
export function storedWorkflow(
  workflow: WorkflowInput,
  id: string,
  stamp: SaveStamp,
  member: string,
  original?: OriginalStamp,
): StoredWorkflowDocument {
  return parseAs(workflowDocumentSchema, toStoredWorkflow(workflow, id, stamp, original), member);
}
