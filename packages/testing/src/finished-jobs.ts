/** One operation task of a finished test job: the built-in `newVariable` given `incoming`, answering `outgoing`. */
export interface FinishedStep {
  incoming: Record<string, unknown>;
  outgoing: Record<string, unknown>;
}

/** What a finished test job is made of; what it leaves out takes the defaults named. */
export interface FinishedJobSpec {
  id: string;
  name: string;
  /** When the job ended, in ms since the epoch; it was created 1,000 ms before. */
  endTime: number;
  /** The parent job: this job is then its child, started from the parent's first step. */
  parent?: string;
  /** `complete` by default. */
  status?: 'complete' | 'error';
  /** `''` by default. */
  description?: string;
  /** The steps by task id, run one after the other; by default one, `a1`, setting `n` to 1. */
  steps?: Record<string, FinishedStep>;
  /** `[]` by default. */
  groups?: string[];
  /** Job variables beside `_id` and `initiator`. */
  variables?: Record<string, unknown>;
}

const SUCCESS = { type: 'standard', state: 'success' } as const;

/**
 * A finished job as the engine leaves it in the `jobs` collection once its events are out: every
 * step complete, chained from `workflow_start` to `workflow_end`, sharing the 400 ms before the
 * last 100 ms of the job, started and owned by admin. For tests and benches that seed old jobs
 * (archives, retention) without running them.
 */
export function finishedJob(spec: FinishedJobSpec) {
  const { id, name, endTime, parent } = spec;
  const steps = spec.steps ?? { a1: { incoming: { name: 'n', value: 1 }, outgoing: { value: 1 } } };
  const ids = Object.keys(steps);
  const stepMs = 400 / ids.length;
  const tasks: Record<string, Record<string, unknown>> = { workflow_start: { name: 'workflow_start', status: 'complete', groups: [] } };
  ids.forEach((taskId, k) => {
    const start = endTime - 500 + k * stepMs;
    tasks[taskId] = {
      name: 'newVariable',
      app: 'WorkFlowEngine',
      type: 'operation',
      status: 'complete',
      groups: [],
      variables: steps[taskId],
      metrics: { start_time: start, end_time: start + stepMs, run_time: stepMs, finish_state: 'success' },
    };
  });
  tasks.workflow_end = { name: 'workflow_end', status: 'complete', groups: [] };
  const chain = ['workflow_start', ...ids, 'workflow_end'];
  const transitions: Record<string, Record<string, typeof SUCCESS>> = {};
  chain.forEach((from, k) => {
    const to = chain[k + 1];
    transitions[from] = to === undefined ? {} : { [to]: SUCCESS };
  });
  return {
    _id: id,
    name,
    description: spec.description ?? '',
    type: 'automation',
    status: spec.status ?? 'complete',
    tasks,
    transitions,
    groups: spec.groups ?? [],
    ancestors: parent ? [parent] : [],
    variables: { _id: id, initiator: 'admin', ...spec.variables } as Record<string, unknown>,
    error: [],
    watchers: ['admin'],
    created: new Date(endTime - 1_000).toISOString(),
    created_by: 'admin',
    last_updated: new Date(endTime).toISOString(),
    last_updated_by: 'admin',
    metrics: { owner: 'admin', start_time: endTime - 1_000, end_time: endTime, run_time: 1_000, finish_state: 'complete' },
    outbox: [],
    eventsPublished: ids.length + 2,
    ...(parent ? { parent: { job: parent, task: ids[0], iteration: 0 } } : {}),
  };
}

/** A job document made by `finishedJob`. */
export type FinishedJob = ReturnType<typeof finishedJob>;
