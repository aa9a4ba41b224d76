import { memberName, projectOf } from '@nap/contracts';
import type { WorkflowDocument } from '@nap/contracts';
import { isRecord } from '@nap/util';

/**
 * Where studio documents refer to each other. Pure: given a document and the names a target is
 * known by, which parts of the document point at it.
 */

/** Kinds of document a reference can point at. */
export const REFERENCE_KINDS = ['workflow', 'transformation', 'template', 'mopTemplate', 'form'] as const;
export type ReferenceKind = (typeof REFERENCE_KINDS)[number];

/** The values of a task that name a document of `kind`, by the task's method. */
function pointersOf(task: Record<string, unknown>, kind: ReferenceKind): unknown[] {
  const variables = isRecord(task.variables) ? task.variables : {};
  const incoming = isRecord(variables.incoming) ? variables.incoming : {};
  switch (kind) {
    case 'workflow':
      return task.name === 'childJob' ? [incoming.workflow] : [];
    case 'transformation':
      if (task.name === 'transformation') return [incoming.tr_id];
      return task.name === 'childJob' ? [incoming.transformation] : [];
    case 'template':
      return task.app === 'TemplateBuilder' ? [incoming.name, incoming.template] : [];
    case 'mopTemplate':
      return task.app === 'MOP' ? [incoming.template] : [];
    case 'form':
      return [incoming.formId, incoming.form];
  }
}

/**
 * Kinds whose plain name, written in a project member, means that project's member of the name first
 * (a childJob's workflow, a TemplateBuilder template: `candidateNames` of `@nap/contracts`).
 */
const PROJECT_SCOPED: ReadonlySet<ReferenceKind> = new Set(['workflow', 'template']);

/**
 * Ids of the tasks of `workflow` that refer to a document known by any of `targets` (its id and
 * name), for the given kinds of document. A member of a project that names a workflow or template
 * by its plain name refers to its own project's member of that name (`@<project id>: <name>`), as
 * the run resolves it: the projects were written that way.
 */
export function referringTasks(
  workflow: Pick<WorkflowDocument, 'tasks'> & { name?: string },
  targets: ReadonlySet<string>,
  kinds: readonly ReferenceKind[],
): string[] {
  const project = typeof workflow.name === 'string' ? projectOf(workflow.name) : undefined;
  const names = (value: unknown, kind: ReferenceKind): boolean => {
    if (typeof value !== 'string') return false;
    if (targets.has(value)) return true;
    return project !== undefined && PROJECT_SCOPED.has(kind) && projectOf(value) === undefined && targets.has(memberName(project, value));
  };
  const found: string[] = [];
  for (const [id, task] of Object.entries(workflow.tasks)) {
    if (!isRecord(task)) continue;
    if (kinds.some((kind) => pointersOf(task, kind).some((value) => names(value, kind)))) found.push(id);
  }
  return found;
}

/** True when a component group lists a document known by any of `targets` among its members. */
export function isGroupMember(members: unknown, targets: ReadonlySet<string>, kinds: readonly ReferenceKind[]): boolean {
  if (!Array.isArray(members)) return false;
  return members.some(
    (m) =>
      isRecord(m) &&
      (typeof m.type !== 'string' || kinds.some((kind) => kind === m.type)) &&
      ((typeof m.id === 'string' && targets.has(m.id)) || (typeof m.name === 'string' && targets.has(m.name))),
  );
}
