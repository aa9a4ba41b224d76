import type { Task } from '@nap/contracts';
import { createLogger } from '@nap/telemetry';
import type { JobRecord } from '../src/domain/job-model';
import { JobState } from '../src/engine/job-state';
import { UnresolvedReferenceError, receiverOf, resolveOperand, resolveReference, resolveTaskIncoming } from '../src/domain/references';
import type { ReferenceScope } from '../src/domain/references';

/**
 * The resolution matrix of the platform NAP replaces (2023.2 and later: "Null vs. undefined values
 * in workflows"): what a task gets for a reference that names nothing set, by the kind of task that
 * receives it (rows) and what is missing (columns: an earlier task's outgoing value, a member of a
 * JST task's several outputs, a job variable).
 */

/** A job in which `a1` ran (outgoing `value`), JST `t2` ran with one of its outputs given, `p3` has not run. */
function scope(): ReferenceScope {
  const tasks: Record<string, Task> = {
    a1: { name: 'newVariable', app: 'WorkFlowEngine', status: 'complete', variables: { outgoing: { value: 'v' }, error: '' } },
    t2: { name: 'transformation', app: 'WorkFlowEngine', status: 'complete', variables: { outgoing: { vpcId: 'vpc-1' }, error: '' } },
    p3: { name: 'query', app: 'WorkFlowEngine', status: 'incomplete', variables: { outgoing: { return_data: null }, error: '' } },
  };
  return { variables: { set: 'here', nested: { a: 1 } }, tasks, unresolved: [] };
}

const MISSING = {
  /** undefined task input: the earlier task's outgoing value is not there */
  taskInput: '$var.a1.absent',
  /** undefined key in a task with multiple outputs (JST task) */
  jstKey: '$var.t2.subnetId',
  /** undefined job variable */
  jobVariable: '$var.job.unset',
} as const;

/** Each row of the matrix: a task of that kind with the three missing references as incoming, and what it gets. */
const ROWS: { row: string; task: Task; expected: { taskInput: null; jstKey: null; jobVariable: null | undefined } }[] = [
  { row: 'merge', task: { app: 'WorkFlowEngine', name: 'merge' }, expected: { taskInput: null, jstKey: null, jobVariable: undefined } },
  {
    row: 'evaluation',
    task: { app: 'WorkFlowEngine', name: 'evaluation' },
    expected: { taskInput: null, jstKey: null, jobVariable: undefined },
  },
  {
    row: 'transformation',
    task: { app: 'WorkFlowEngine', name: 'transformation' },
    expected: { taskInput: null, jstKey: null, jobVariable: undefined },
  },
  {
    row: 'childJob',
    task: { app: 'WorkFlowEngine', name: 'childJob' },
    expected: { taskInput: null, jstKey: null, jobVariable: undefined },
  },
  {
    row: 'WorkFlowEngine automated task',
    task: { app: 'WorkFlowEngine', name: 'arrayLength' },
    expected: { taskInput: null, jstKey: null, jobVariable: undefined },
  },
  {
    row: 'WorkFlowEngine manual task',
    task: { app: 'WorkFlowEngine', name: 'ViewData', type: 'manual' },
    expected: { taskInput: null, jstKey: null, jobVariable: undefined },
  },
  { row: 'app task', task: { app: 'MOP', name: 'RunCommandTemplate' }, expected: { taskInput: null, jstKey: null, jobVariable: null } },
  {
    row: 'adapter task',
    task: { app: 'Servicenow', name: 'createIncident' },
    expected: { taskInput: null, jstKey: null, jobVariable: null },
  },
];

describe('references to nothing set resolve as the platform documents (2023.2 and later)', () => {
  it.each(ROWS)(
    '$row: an absent outgoing value and JST output give null, an unset job variable $expected.jobVariable',
    ({ task, expected }) => {
      const s = scope();
      const incoming = resolveTaskIncoming({ ...task, variables: { incoming: { ...MISSING, kept: 'as is', given: '$var.job.set' } } }, s);
      expect(incoming).toEqual({
        taskInput: null,
        jstKey: null,
        ...(expected.jobVariable === null ? { jobVariable: null } : {}),
        kept: 'as is',
        given: 'here',
      });
      // a WorkFlowEngine task's code finds the member absent, not present with undefined; an app gets it as null
      expect(Object.hasOwn(incoming, 'jobVariable')).toBe(expected.jobVariable === null);
      for (const [column, value] of Object.entries(expected)) expect([column, incoming[column]]).toEqual([column, value]);
      expect(s.unresolved).toEqual([MISSING.taskInput, MISSING.jstKey, MISSING.jobVariable]);
    },
  );

  it("resolves the members of a transformation task's variableMap one level down by the same rules", () => {
    const s = scope();
    const task: Task = {
      app: 'WorkFlowEngine',
      name: 'transformation',
      variables: { incoming: { tr_id: 'jst', variableMap: { ...MISSING, vpc: '$var.t2.vpcId' } } },
    };
    expect(resolveTaskIncoming(task, s)).toEqual({ tr_id: 'jst', variableMap: { taskInput: null, jstKey: null, vpc: 'vpc-1' } });
    expect(s.unresolved).toEqual([MISSING.taskInput, MISSING.jstKey, MISSING.jobVariable]);
    // a map of that name on an app's task is data, not references
    const app: Task = { app: 'MOP', name: 'transformation', variables: { incoming: { variableMap: { x: '$var.job.unset' } } } };
    expect(resolveTaskIncoming(app, scope())).toEqual({ variableMap: { x: '$var.job.unset' } });
  });

  it('gives null for an outgoing value of a task that has not run yet, for every receiver', () => {
    for (const receiver of ['engine', 'app'] as const) {
      const s = scope();
      expect(resolveReference('$var.p3.return_data', s, receiver)).toBeNull();
      expect(resolveReference('$var.p3.error', s, receiver)).toBeNull();
      expect(s.unresolved).toEqual(['$var.p3.return_data', '$var.p3.error']);
    }
  });

  it('reads what is set, nested members too, and notes only what is not there', () => {
    const s = scope();
    expect(resolveReference('$var.job.set', s, 'app')).toBe('here');
    expect(resolveReference('$var.job.nested.a', s)).toBe(1);
    expect(resolveReference('$var.job.nested.b', s)).toBeUndefined();
    expect(resolveReference('$var.job.nested.b', s, 'app')).toBeNull();
    expect(resolveReference('$var.a1.value', s)).toBe('v');
    expect(resolveReference('$var.a1.error', s)).toBe('');
    expect(s.unresolved).toEqual(['$var.job.nested.b', '$var.job.nested.b']);
  });

  it('resolves the operands of merge, evaluation and childJob as a WorkFlowEngine task gets them', () => {
    const s = scope();
    expect(resolveOperand({ task: 'job', variable: 'unset' }, s)).toBeUndefined();
    expect(resolveOperand({ task: 'a1', variable: 'absent' }, s)).toBeNull();
    expect(resolveOperand({ variable: '', task: 't2', value: 'subnetId' }, s)).toBeNull();
    expect(resolveOperand({ task: 'p3', variable: 'return_data' }, s)).toBeNull();
    expect(resolveOperand({ task: 'static', variable: '$var.job.unset' }, s)).toBeUndefined();
    expect(resolveOperand({ task: 'job', variable: 'set' }, s)).toBe('here');
    expect(s.unresolved).toEqual(['$var.job.unset', '$var.a1.absent', '$var.t2.subnetId', '$var.p3.return_data', '$var.job.unset']);
  });

  it('still fails a reference to a task the workflow does not have, naming it', () => {
    const s = scope();
    const incoming = { x: '$var.zz9.result' };
    expect(() => resolveTaskIncoming({ app: 'WorkFlowEngine', name: 'arrayLength', variables: { incoming } }, s)).toThrow(
      new UnresolvedReferenceError('$var.zz9.result', 'the workflow has no task "zz9"'),
    );
    expect(() => resolveTaskIncoming({ app: 'MOP', name: 'RunCommandTemplate', variables: { incoming } }, s)).toThrow(
      'Reference $var.zz9.result is not resolved: the workflow has no task "zz9"',
    );
    expect(() => resolveOperand({ task: 'zz9', variable: 'result' }, s)).toThrow(UnresolvedReferenceError);
    // a name the tasks object inherits is no task either
    expect(() => resolveReference('$var.constructor.name', s)).toThrow('the workflow has no task "constructor"');
  });

  it("tells a WorkFlowEngine task from an app's", () => {
    expect(receiverOf({ app: 'WorkFlowEngine' })).toBe('engine');
    expect(receiverOf({ app: 'MOP' })).toBe('app');
    expect(receiverOf({ app: 'Servicenow' })).toBe('app');
  });

  it('logs the references of a task that name nothing set at debug level, naming the job and the task', () => {
    const lines: string[] = [];
    const log = createLogger({ name: 'references-test', level: 'debug', destination: { write: (line: string) => lines.push(line) } });
    const { tasks, variables } = scope();
    const m4: Task = {
      app: 'MOP',
      name: 'RunCommandTemplate',
      status: 'running',
      variables: { incoming: { a: '$var.job.unset', b: '$var.job.unset' }, outgoing: {}, error: '' },
    };
    const job = {
      _id: 'job-1',
      name: 'j',
      status: 'running',
      tasks: { ...tasks, m4 },
      variables,
      error: [],
      ancestors: [],
      groups: [],
      transitions: {},
    };
    const state = new JobState(job as unknown as JobRecord, 'server-1', log);
    const incoming = state.resolving('m4', (s) => resolveTaskIncoming(m4, s));
    expect(incoming).toEqual({ a: null, b: null });
    expect(state.resolving('a1', (s) => resolveReference('$var.job.set', s))).toBe('here');
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({
        level: 20,
        jobId: 'job-1',
        taskId: 'm4',
        app: 'MOP',
        task: 'RunCommandTemplate',
        references: ['$var.job.unset'],
      }),
    ]);
  });
});
