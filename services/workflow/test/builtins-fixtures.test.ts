import type { WorkflowDocument, WorkflowTask } from '@nap/contracts';
import { workflowDocument } from '@nap/testing';
import type { Edge } from '@nap/testing';
import { BUILTINS } from '../src/engine/builtins';
import type { ReferenceScope } from '../src/domain/references';
import { FIXTURES_PRESENT, fixtureWorkflows, warnFixturesAbsent } from './fixtures';
import type { EngineHarness } from './support/harness';
import { startEngineHarness } from './support/harness';

/**
 * Every built-in (WorkFlowEngine) task that the real workflows use runs here with the incoming
 * variables of its first use in the fixtures, exactly as written there; only the values its
 * references point at are supplied. `transformation` comes with the JST engine of a later issue.
 */

interface Use {
  workflow: string;
  taskId: string;
  task: WorkflowTask;
}

function firstUses(): Map<string, Use> {
  const uses = new Map<string, Use>();
  for (const wf of fixtureWorkflows()) {
    for (const [taskId, task] of Object.entries(wf.tasks)) {
      if (task.app !== 'WorkFlowEngine' || task.name === 'transformation' || uses.has(String(task.name))) continue;
      uses.set(String(task.name), { workflow: wf.name, taskId, task });
    }
  }
  return uses;
}

/** A scope in which the given references (`$var.job.x`, `$var.<task>.<name>`) resolve to the given values. */
function scopeOf(values: Record<string, unknown>): ReferenceScope {
  const scope: ReferenceScope = { variables: {}, tasks: {} };
  for (const [reference, value] of Object.entries(values)) {
    const [, source, name] = /^\$var\.([^.]+)\.(.+)$/.exec(reference) as unknown as [string, string, string];
    if (source === 'job') scope.variables[name] = value;
    else {
      const task = (scope.tasks[source] ??= { status: 'complete', variables: { outgoing: {} } });
      (task.variables as { outgoing: Record<string, unknown> }).outgoing[name] = value;
    }
  }
  return scope;
}

function resolved(incoming: Record<string, unknown>, scope: ReferenceScope): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(incoming)) {
    const m = typeof v === 'string' ? /^\$var\.([^.]+)\.(.+)$/.exec(v) : null;
    out[k] = m
      ? m[1] === 'job'
        ? scope.variables[m[2] as string]
        : scope.tasks[m[1] as string]?.variables?.outgoing?.[m[2] as string]
      : v;
  }
  return out;
}

interface Case {
  /** Values of the references the fixture's incoming makes. */
  values: Record<string, unknown>;
  finishState?: string;
  outgoing: Record<string, unknown>;
  setVariables?: Record<string, unknown>;
}

const vpc = { name: 'vpc-id', value: 'vpc-1' };
const DIRECT: Record<string, (incoming: Record<string, unknown>) => Case> = {
  query: () => ({
    values: { '$var.303c.result': { response: { CreateSubnetResponse: { subnet: { subnetId: 'subnet-9' } } } } },
    outgoing: { return_data: 'subnet-9' },
  }),
  evaluation: () => ({
    values: { '$var.ab1.result': { response: { DescribeInstancesResponse: { reservationSet: '' } } } },
    outgoing: { return_value: true },
  }),
  delay: () => ({ values: {}, outgoing: { time_in_milliseconds: 60_000 } }),
  stub: () => ({ values: {}, outgoing: { response: '' } }),
  arrayPush: () => ({ values: { '$var.80a6.merged_object': vpc }, outgoing: { pushedArray: [vpc] } }),
  merge: () => ({ values: { '$var.job.vpcId': 'vpc-1' }, outgoing: { merged_object: vpc } }),
  arrayLength: () => ({ values: { '$var.eb83.return_data': ['rtb-1', 'rtb-2'] }, outgoing: { length: 2 } }),
  newVariable: () => ({ values: { '$var.5481.segmentId': 42 }, outgoing: { value: 42 }, setVariables: { segmentId: 42 } }),
  setObjectKey: () => ({ values: { '$var.job.serials': ['Q2-1'] }, outgoing: { object: { serials: ['Q2-1'] } } }),
  push: () => ({
    values: { '$var.61db.return_data': { diff: '+a' } },
    outgoing: { job_variable_value: [{ diff: '+a' }] },
    setVariables: { result: [{ diff: '+a' }] },
  }),
  modify: () => ({ values: { '$var.job.template_name': 'old', '$var.bf60.return_data': 'new' }, outgoing: { updated_object: 'new' } }),
  arrayIndexOf: () => ({ values: { '$var.75f.return_data': ['a', 'b'], '$var.job.template_name': 'b' }, outgoing: { index: 1 } }),
  makeData: () => ({
    values: { '$var.ef6e.merged_object': { filePath: 'configs', fileName: 'r1.txt' } },
    outgoing: { output: 'configs/r1.txt' },
  }),
  stringLength: () => ({ values: { '$var.job.filePath': 'a/b/c' }, outgoing: { length: 5 } }),
  substring: () => ({
    values: { '$var.b02e.return_data': 'networkcontainer/ZG5zLm5ldHdvcmtfY29udGFpbmVy' },
    outgoing: { substring: 'ZG5zLm5ldHdvcmtfY29udGFpbmVy' },
  }),
  stringConcat: () => ({
    values: { '$var.267b.combinedStrings': '# ', '$var.dd14.return_data': 'Bundle' },
    outgoing: { combinedStrings: '# Bundle' },
  }),
  join: () => ({ values: { '$var.job.message': ['one', 'two'] }, outgoing: { joinedElements: 'one<br>two' } }),
  calculateTimeDiff: () => ({
    values: {
      '$var.35e4.merged_object': { time: '2024-01-01T00:00:00.000Z', formatString: 'YYYY-MM-DDTHH:mm:ss.SSSZ' },
      '$var.job.startTime': '2024-01-01T00:00:02.500Z',
    },
    outgoing: { timeDiff: 2500 },
  }),
  numberToString: () => ({ values: { '$var.job.prefixId': 255 }, outgoing: { numToString: '255' } }),
  arrayIncludes: () => ({
    values: { '$var.d645.return_data': ['hub', 'spoke-1'], '$var.job.spokeGroupName': 'spoke-1' },
    outgoing: { result: true },
  }),
  split: () => ({ values: { '$var.job.version': '21.2.3' }, outgoing: { splitArray: ['21', '2', '3'] } }),
};

if (!FIXTURES_PRESENT) {
  describe('built-in tasks as the fixtures use them', () => {
    it('did NOT run: the fixtures folder is absent', () => {
      warnFixturesAbsent('each built-in task with the incoming shape of the real workflows');
    });
  });
} else {
  const uses = firstUses();
  let h: EngineHarness;

  beforeAll(async () => {
    h = await startEngineHarness();
  });
  afterAll(async () => {
    await h.stop();
  });

  describe('built-in tasks as the fixtures use them', () => {
    it('covers every WorkFlowEngine task name the fixtures use', () => {
      const engineRun = ['ViewData', 'ViewDiff', 'childJob', 'forEach', 'getTime'];
      expect([...uses.keys()].sort()).toEqual([...Object.keys(DIRECT), ...engineRun].sort());
    });

    it.each(Object.keys(DIRECT))('%s runs with the incoming of its first use', async (name) => {
      const use = uses.get(name) as Use;
      const incoming = use.task.variables?.incoming ?? {};
      const c = (DIRECT[name] as (i: Record<string, unknown>) => Case)(incoming);
      const scope = scopeOf(c.values);
      const result = await (BUILTINS[name] as (typeof BUILTINS)[string])({
        incoming: resolved(incoming, scope),
        scope,
        startedAt: Date.now() - 3_600_000,
        signal: new AbortController().signal,
      });
      expect(result.finishState).toBe(c.finishState ?? 'success');
      expect(result.outgoing).toEqual(c.outgoing);
      if (c.setVariables) expect(result.setVariables).toEqual(c.setVariables);
    });

    it('getTime gives the time at the fixture timezone', async () => {
      const use = uses.get('getTime') as Use;
      const scope = scopeOf({ '$var.91ea.offsetDuration': { days: -30 } });
      const result = await (BUILTINS.getTime as (typeof BUILTINS)[string])({
        incoming: resolved(use.task.variables?.incoming ?? {}, scope),
        scope,
        startedAt: Date.now(),
        signal: new AbortController().signal,
      });
      expect(result.outgoing.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}-04:00$/);
      const at = Date.parse(String(result.outgoing.time));
      expect(Math.abs(at - (Date.now() - 30 * 86_400_000))).toBeLessThan(60_000);
    });

    /** Runs one fixture task inside a workflow of its own, in the engine. */
    function around(use: Use, name: string, extraTasks: WorkflowDocument['tasks'] = {}, extraEdges: Edge[] = []): WorkflowDocument {
      return workflowDocument(name, { [use.taskId]: use.task, ...extraTasks }, [
        ['workflow_start', use.taskId],
        [use.taskId, 'workflow_end'],
        ...extraEdges,
      ]);
    }

    it.each(['ViewData', 'ViewDiff'])('%s waits for a person and finishes with what they answered', async (name) => {
      const use = uses.get(name) as Use;
      const refs = JSON.stringify(use.task.variables?.incoming).match(/\$var\.[^"]+/g) ?? [];
      const prior = Object.fromEntries(refs.map((r) => [r.split('.')[1] as string, r.split('.')[2] as string]));
      const tasks: WorkflowDocument['tasks'] = {};
      const edges: [string, string][] = [];
      for (const [id, variable] of Object.entries(prior)) {
        tasks[id] = {
          name: 'stub',
          app: 'WorkFlowEngine',
          type: 'automatic',
          variables: { incoming: { type: 'success', delay: '', response: `value of ${variable}` }, outgoing: { [variable]: null } },
        };
      }
      const wf = around(use, `fixture-${name}`, tasks, edges);
      // the referenced tasks run first
      const ids = Object.keys(prior);
      if (ids.length > 0) {
        wf.transitions.workflow_start = { [ids[0] as string]: { state: 'success', type: 'standard' } };
        ids.forEach((id, i) => (wf.transitions[id] = { [ids[i + 1] ?? use.taskId]: { state: 'success', type: 'standard' } }));
      }
      const started = await h.run(wf);
      const waiting = await h.waitUntil(started._id, (j) => j.tasks[use.taskId]?.status === 'running', `${name} waiting`);
      expect(waiting.tasks[use.taskId]?.variables?.resolved).toMatchObject({
        header: (use.task.variables?.incoming as { header: string }).header,
      });
      await h.engine.finishTask(waiting, use.taskId, { finish_state: 'success' }, 'tester');
      const job = await h.waitFor(started._id, ['complete', 'error']);
      expect(job.tasks[use.taskId]).toMatchObject({ status: 'complete', metrics: { finish_state: 'success' } });
    });

    it('forEach loops over its data_array', async () => {
      const use = uses.get('forEach') as Use;
      const source = /^\$var\.([^.]+)\.(.+)$/.exec(String(use.task.variables?.incoming?.data_array)) as RegExpExecArray;
      const wf = workflowDocument(
        'fixture-forEach',
        {
          [source[1] as string]: {
            name: 'newVariable',
            app: 'WorkFlowEngine',
            type: 'operation',
            variables: { incoming: { name: 'unused', value: [{ n: 1 }, { n: 2 }] }, outgoing: { value: null } },
          },
          [use.taskId]: use.task,
          b1: {
            name: 'push',
            app: 'WorkFlowEngine',
            type: 'operation',
            variables: { incoming: { job_variable: 'seen', item_to_push: `$var.${use.taskId}.current_item` }, outgoing: {} },
          },
        },
        [
          ['workflow_start', source[1] as string],
          [source[1] as string, use.taskId],
          [use.taskId, 'b1', 'loop'],
          [use.taskId, 'workflow_end', 'success'],
        ],
      );
      // the fixture reads return_data of a query; a newVariable answers as value, so point it there
      wf.tasks[use.taskId] = {
        ...(wf.tasks[use.taskId] ?? use.task),
        variables: { ...(use.task.variables ?? {}), incoming: { data_array: `$var.${source[1]}.value` } },
      };
      const job = await h.waitFor((await h.run(wf))._id, ['complete', 'error']);
      expect(job.status).toBe('complete');
      expect(job.variables.seen).toEqual([{ n: 1 }, { n: 2 }]);
    });

    it('childJob runs the workflow it names, once per item in a sequential loop', async () => {
      const use = uses.get('childJob') as Use;
      const incoming = use.task.variables?.incoming as {
        workflow: string;
        data_array: string;
        loopType: string;
        variables: Record<string, { task: string; value: string }>;
      };
      expect(incoming.loopType).toBe('sequential');
      const [, sourceTask, sourceVar] = /^\$var\.([^.]+)\.(.+)$/.exec(incoming.data_array) as unknown as [string, string, string];
      h.workflows.set(
        incoming.workflow,
        workflowDocument(
          incoming.workflow,
          {
            c1: {
              name: 'newVariable',
              app: 'WorkFlowEngine',
              type: 'operation',
              variables: { incoming: { name: 'echo', value: '$var.job.port' }, outgoing: { value: null } },
            },
          },
          [
            ['workflow_start', 'c1'],
            ['c1', 'workflow_end'],
          ],
        ),
      );
      const wf = workflowDocument(
        'fixture-childJob',
        {
          [sourceTask]: {
            name: 'stub',
            app: 'WorkFlowEngine',
            type: 'automatic',
            variables: { incoming: { type: 'success', delay: '', response: [{ port: 22 }, { port: 443 }] }, outgoing: { response: null } },
          },
          [use.taskId]: use.task,
        },
        [
          ['workflow_start', sourceTask],
          [sourceTask, use.taskId],
          [use.taskId, 'workflow_end'],
        ],
      );
      wf.tasks[use.taskId] = {
        ...use.task,
        variables: {
          ...(use.task.variables ?? {}),
          incoming: {
            ...incoming,
            data_array: `$var.${sourceTask}.response`,
            variables: Object.fromEntries(
              Object.entries(incoming.variables).map(([k, v]) => [k, { ...v, value: v.value === sourceVar ? 'response' : v.value }]),
            ),
          },
        },
      };
      const job = await h.waitFor((await h.run(wf))._id, ['complete', 'error']);
      expect(job.status).toBe('complete');
      const details = job.tasks[use.taskId]?.variables?.outgoing?.job_details as { status: string; variables: { echo: number } }[];
      expect(details.map((d) => [d.status, d.variables.echo])).toEqual([
        ['complete', 22],
        ['complete', 443],
      ]);
    });
  });
}
