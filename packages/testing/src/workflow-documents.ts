import type { TransitionState, TransitionType, WorkflowDocument, WorkflowTask } from '@nap/contracts';

/** A transition of a test workflow: `[from, to, state?, type?]` (success and standard by default). */
export type Edge = [string, string, TransitionState?, TransitionType?];

/**
 * A workflow document in the shape existing workflows have: `workflow_start` and `workflow_end`
 * with only name and groups, tasks by short ids, transitions from → to → `{ state, type }`. A task
 * gets the members every stored task has (app `WorkFlowEngine`, type `automatic`, empty variables),
 * overridden by what `tasks` gives; `_id` is `wf-<name>`. The one builder every test uses.
 */
export function workflowDocument(
  name: string,
  tasks: Record<string, Partial<WorkflowTask> & { name: string }>,
  edges: Edge[],
  extra: Partial<WorkflowDocument> = {},
): WorkflowDocument {
  const all: Record<string, WorkflowTask> = {
    workflow_start: { name: 'workflow_start', groups: [], nodeLocation: { x: 0, y: 0 } },
    workflow_end: { name: 'workflow_end', groups: [], nodeLocation: { x: 900, y: 0 } },
  };
  let x = 0;
  for (const [id, spec] of Object.entries(tasks)) {
    x += 150;
    all[id] = {
      app: 'WorkFlowEngine',
      type: 'automatic',
      summary: spec.name,
      description: spec.name,
      groups: [],
      variables: { incoming: {}, outgoing: {}, error: '', decorators: [] },
      nodeLocation: { x, y: 0 },
      ...spec,
    };
  }
  const transitions: WorkflowDocument['transitions'] = {};
  for (const id of Object.keys(all)) transitions[id] = {};
  for (const [from, to, state = 'success', type = 'standard'] of edges) (transitions[from] ??= {})[to] = { state, type };
  // an id of letters, digits, _ and - is kept by the studio, so a test knows it before it saves
  const _id = `wf-${name.replace(/[^\w-]/g, '-')}`;
  return { _id, name, description: name, type: 'automation', tasks: all, transitions, groups: [], ...extra };
}

/** A task of app `app` (the engine's built-ins by default) with these incoming and outgoing variables. */
export function task(
  name: string,
  incoming: Record<string, unknown>,
  outgoing: Record<string, unknown> = {},
  extra: Partial<WorkflowTask> = {},
): Partial<WorkflowTask> & { name: string } {
  return { name, app: 'WorkFlowEngine', type: 'automatic', variables: { incoming, outgoing, error: '', decorators: [] }, ...extra };
}

/** A two-step workflow of built-ins (`a1` sets `a` to 1, then `b2` sets `b` to 2): its job ends complete with `{ a: 1, b: 2 }`. */
export function linearWorkflow(name: string, extra: Partial<WorkflowDocument> = {}): WorkflowDocument {
  return workflowDocument(
    name,
    { a1: task('newVariable', { name: 'a', value: 1 }), b2: task('newVariable', { name: 'b', value: 2 }) },
    [
      ['workflow_start', 'a1'],
      ['a1', 'b2'],
      ['b2', 'workflow_end'],
    ],
    extra,
  );
}
