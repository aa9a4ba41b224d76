import { validateWorkflow } from './workflow-validation';

type Tasks = Record<string, Record<string, unknown>>;
type Transitions = Record<string, Record<string, unknown>>;

const ok = { state: 'success', type: 'standard' };
const onError = { state: 'error', type: 'standard' };

function task(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    app: 'WorkFlowEngine',
    type: 'automatic',
    summary: name,
    description: name,
    displayName: 'WorkFlowEngine',
    variables: { incoming: {}, outgoing: {}, error: '', decorators: [] },
    groups: [],
    x: 0,
    y: 0,
    ...extra,
  };
}

/** The real shape of start and end: name, groups, nodeLocation only. */
function frame(): Tasks {
  return {
    workflow_start: { name: 'workflow_start', groups: [], nodeLocation: { x: 0, y: 0 } },
    workflow_end: { name: 'workflow_end', groups: [], nodeLocation: { x: 0, y: 100 } },
  };
}

function workflow(tasks: Tasks, transitions: Transitions): Record<string, unknown> {
  return { name: 'wf', type: 'automation', tasks, transitions };
}

function codes(problems: { code: string }[]): string[] {
  return problems.map((p) => p.code).sort();
}

describe('validateWorkflow', () => {
  it('accepts a linear workflow whose task has both a success and an error way out, with no warning', () => {
    const check = validateWorkflow(
      workflow(
        { ...frame(), a1: task('newVariable'), e1: task('ViewData', { type: 'manual' }) },
        { workflow_start: { a1: ok }, a1: { workflow_end: ok, e1: onError }, e1: { workflow_end: ok }, workflow_end: {} },
      ),
    );
    expect(check).toEqual({ errors: [], warnings: [] });
  });

  it('refuses a workflow without workflow_start or workflow_end', () => {
    const check = validateWorkflow(workflow({ a1: task('stub') }, {}));
    expect(codes(check.errors)).toEqual(['END_MISSING', 'START_MISSING']);
  });

  it('names the task and the transition of a transition to a task that does not exist', () => {
    const check = validateWorkflow(
      workflow({ ...frame(), a1: task('stub') }, { workflow_start: { a1: ok }, a1: { b2: ok, workflow_end: onError } }),
    );
    expect(check.errors).toEqual([
      expect.objectContaining({
        code: 'TRANSITION_TO_UNKNOWN_TASK',
        member: 'transitions.a1.b2',
        task: 'a1',
        transition: { from: 'a1', to: 'b2' },
        message: expect.stringContaining('"b2"'),
      }),
    ]);
  });

  it('refuses a transition out of a task that does not exist, and lets an empty entry for a deleted task pass', () => {
    const check = validateWorkflow(
      workflow({ ...frame() }, { workflow_start: { workflow_end: ok }, ghost: { workflow_end: ok }, '565e': {} }),
    );
    expect(check.errors).toEqual([
      expect.objectContaining({ code: 'TRANSITION_FROM_UNKNOWN_TASK', transition: { from: 'ghost', to: 'workflow_end' } }),
    ]);
    expect(check.warnings).toEqual([]);
  });

  it('refuses a task that cannot be reached from workflow_start', () => {
    const check = validateWorkflow(
      workflow(
        { ...frame(), a1: task('stub'), b2: task('stub') },
        { workflow_start: { workflow_end: ok }, b2: { a1: ok }, a1: { workflow_end: ok } },
      ),
    );
    expect(check.errors.map((p) => [p.code, p.task])).toEqual([
      ['TASK_UNREACHABLE', 'a1'],
      ['TASK_UNREACHABLE', 'b2'],
    ]);
  });

  it('follows every kind of transition for reachability, revert and loop included', () => {
    const check = validateWorkflow(
      workflow(
        { ...frame(), a1: task('forEach'), b2: task('stub'), c3: task('ViewData', { type: 'manual' }) },
        {
          workflow_start: { a1: ok },
          a1: { b2: { state: 'loop', type: 'standard' }, workflow_end: ok, c3: onError },
          b2: { workflow_end: ok, c3: onError },
          c3: { a1: { state: 'success', type: 'revert' }, workflow_end: { state: 'failure', type: 'standard' } },
        },
      ),
    );
    expect(check).toEqual({ errors: [], warnings: [] });
  });

  it('refuses transition states and types the engine does not know, naming the member', () => {
    const check = validateWorkflow(
      workflow(
        { ...frame(), a1: task('stub') },
        { workflow_start: { a1: { state: 'done', type: 'standard' } }, a1: { workflow_end: { state: 'success', type: 'backwards' } } },
      ),
    );
    expect(check.errors).toEqual([
      expect.objectContaining({
        code: 'TRANSITION_STATE_INVALID',
        member: 'transitions.workflow_start.a1.state',
        transition: { from: 'workflow_start', to: 'a1' },
      }),
      expect.objectContaining({
        code: 'TRANSITION_TYPE_INVALID',
        member: 'transitions.a1.workflow_end.type',
        transition: { from: 'a1', to: 'workflow_end' },
      }),
    ]);
  });

  it('refuses a transition without state or type', () => {
    const check = validateWorkflow(workflow({ ...frame() }, { workflow_start: { workflow_end: {} } }));
    expect(codes(check.errors)).toEqual(['TRANSITION_STATE_INVALID', 'TRANSITION_TYPE_INVALID']);
  });

  it('warns, without refusing, about a task without an error transition, a dead end and an unreachable workflow_end', () => {
    const check = validateWorkflow(
      workflow({ ...frame(), a1: task('stub'), b2: task('stub') }, { workflow_start: { a1: ok }, a1: { b2: ok } }),
    );
    expect(check.errors).toEqual([]);
    expect(check.warnings.map((w) => [w.code, w.task])).toEqual([
      ['END_UNREACHABLE', 'workflow_end'],
      ['TASK_WITHOUT_ERROR_TRANSITION', 'a1'],
      ['TASK_DEAD_END', 'b2'],
    ]);
  });

  it('expects no error transition of a manual task', () => {
    const check = validateWorkflow(
      workflow({ ...frame(), m1: task('ViewData', { type: 'manual' }) }, { workflow_start: { m1: ok }, m1: { workflow_end: ok } }),
    );
    expect(check).toEqual({ errors: [], warnings: [] });
  });

  it('exempts error_handler and what follows it from reachability', () => {
    const check = validateWorkflow(
      workflow(
        { ...frame(), error_handler: task('stub'), e1: task('stub') },
        { workflow_start: { workflow_end: ok }, error_handler: { e1: ok }, e1: { workflow_end: ok } },
      ),
    );
    expect(check.errors).toEqual([]);
  });

  it('refuses task ids that cannot be referenced, tasks without a method and malformed parts', () => {
    const check = validateWorkflow(
      workflow(
        {
          ...frame(),
          'a.b': task('stub'),
          nameless: { app: 'WorkFlowEngine' },
          v1: task('stub', { variables: { incoming: 'x', outgoing: {}, decorators: {} } }),
          r1: task('stub', { retrySettings: { autoRetry: 'yes', limit: -1, delay: 'soon', state: ['maybe'] } }),
        },
        {
          workflow_start: { 'a.b': ok, nameless: ok, v1: ok, r1: ok },
          'a.b': { workflow_end: ok },
          nameless: { workflow_end: ok },
          v1: { workflow_end: ok },
          r1: { workflow_end: ok },
        },
      ),
    );
    expect(codes(check.errors)).toEqual([
      'TASK_ID_INVALID',
      'TASK_NAME_MISSING',
      'TASK_RETRY_SETTINGS_INVALID',
      'TASK_RETRY_SETTINGS_INVALID',
      'TASK_RETRY_SETTINGS_INVALID',
      'TASK_RETRY_SETTINGS_INVALID',
      'TASK_VARIABLES_INVALID',
      'TASK_VARIABLES_INVALID',
    ]);
    expect(check.errors.find((p) => p.code === 'TASK_ID_INVALID')).toMatchObject({ task: 'a.b', member: 'tasks.a.b' });
  });

  it('accepts valid retry settings and null ones, and warns about an unknown task type', () => {
    const check = validateWorkflow(
      workflow(
        {
          ...frame(),
          a1: task('stub', { retrySettings: { state: ['error', 'failure'], autoRetry: true, limit: 3, delay: 3000 } }),
          b2: task('stub', { retrySettings: null, type: 'automated' }),
        },
        { workflow_start: { a1: ok }, a1: { b2: ok, workflow_end: onError }, b2: { workflow_end: ok } },
      ),
    );
    expect(check.errors).toEqual([]);
    expect(check.warnings.map((w) => [w.code, w.task])).toEqual([
      ['TASK_TYPE_UNKNOWN', 'b2'],
      ['TASK_WITHOUT_ERROR_TRANSITION', 'b2'],
    ]);
  });

  it('refuses what is not a workflow at all', () => {
    expect(codes(validateWorkflow(null).errors)).toEqual(['NOT_AN_OBJECT']);
    expect(codes(validateWorkflow({ name: '', tasks: [] }).errors)).toEqual(['NAME_MISSING', 'TASKS_MISSING']);
    expect(codes(validateWorkflow({ name: 'x', tasks: { ...frame() }, transitions: [] }).errors)).toEqual(['TRANSITIONS_NOT_AN_OBJECT']);
  });

  it('warns about transitions out of workflow_end and back into workflow_start', () => {
    const check = validateWorkflow(
      workflow({ ...frame() }, { workflow_start: { workflow_end: ok }, workflow_end: { workflow_start: ok } }),
    );
    expect(check.errors).toEqual([]);
    expect(codes(check.warnings)).toEqual(['TRANSITION_FROM_END', 'TRANSITION_TO_START']);
  });
});
