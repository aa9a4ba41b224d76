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
 * Ids of the tasks of `workflow` that refer to a document known by any of `targets` (its id and
 * name), for the given kinds of document.
 */
export function referringTasks(
  workflow: Pick<WorkflowDocument, 'tasks'>,
  targets: ReadonlySet<string>,
  kinds: readonly ReferenceKind[],
): string[] {
  const found: string[] = [];
  for (const [id, task] of Object.entries(workflow.tasks)) {
    if (!isRecord(task)) continue;
    if (kinds.some((kind) => pointersOf(task, kind).some((value) => typeof value === 'string' && targets.has(value)))) found.push(id);
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
