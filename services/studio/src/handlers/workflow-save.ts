import { AppError, isValid, parseAs, validateAgainst, workflowDocumentSchema, workflowInputSchema } from '@nap/contracts';
import type { Caller, StoredWorkflowDocument, WorkflowInput, WorkflowProblem } from '@nap/contracts';
import { assertAccess, assertAssignable } from '../domain/access';
import { keepableId, toStoredWorkflow } from '../domain/documents';
import { WORKFLOW_ERRORS, validateWorkflow } from '../domain/workflow-validation';
import { nameOf } from './checked';
import type { StudioDeps } from './deps';

/** A saved workflow and what was risky about it. */
export interface SavedWorkflow {
  doc: StoredWorkflowDocument;
  warnings: WorkflowProblem[];
}

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
function stored(
  workflow: WorkflowInput,
  id: string,
  caller: Caller,
  at: string,
  member: string,
  original?: { _id: string; created: string; createdBy: string },
): StoredWorkflowDocument {
  return parseAs(workflowDocumentSchema, toStoredWorkflow(workflow, id, { by: caller.username, at }, original), member);
}

/** Validates and stores a new workflow; 409 `WORKFLOW_ALREADY_EXISTS` when the name (or kept id) is taken. */
export async function createWorkflow(deps: StudioDeps, input: unknown, caller: Caller, member: string): Promise<SavedWorkflow> {
  const { workflow, warnings } = checkWorkflow(input, member);
  assertAssignable(caller, workflow.groups, 'workflow');
  const doc = stored(workflow, keepableId(workflow._id) ?? deps.newId(), caller, deps.now(), member);
  return { doc: await deps.workflows.insert(doc), warnings };
}

/** Validates and replaces the workflow with id `id`; its creation stamp stays. */
export async function replaceWorkflow(
  deps: StudioDeps,
  id: string,
  input: unknown,
  caller: Caller,
  member: string,
): Promise<SavedWorkflow> {
  const current = await deps.workflows.get(id);
  assertAccess(caller, current, 'workflow');
  const { workflow, warnings } = checkWorkflow(input, member);
  assertAssignable(caller, workflow.groups, 'workflow');
  const doc = stored(workflow, id, caller, deps.now(), member, { _id: id, created: current.created, createdBy: current.created_by });
  return { doc: await deps.workflows.replace(doc), warnings };
}
