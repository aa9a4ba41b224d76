import type { CallInput } from '@nap/bus';
import type { WorkflowTask } from '@nap/contracts';
import { task, workflowDocument } from '@nap/testing';
import type { JobRecord } from '../src/domain/job-model';
import type { EngineHarness } from './support/harness';
import { startEngineHarness } from './support/harness';
import { parentOf } from './support/child-job';

/**
 * Jobs whose tasks read what nobody set go on, as on the platform NAP replaces (2023.2 and later):
 * a job variable nobody set is absent for a WorkFlowEngine task and null for an app's, an outgoing
 * value that is not there (its task has not run, or did not give it) is null. Each kind of task that
 * receives one, through a real job.
 */

let h: EngineHarness;

beforeAll(async () => {
  h = await startEngineHarness();
});

afterAll(async () => {
  await h.stop();
});

const done = (id: string) => h.waitFor(id, ['complete', 'error', 'canceled']);

/** An evaluation of one comparison `operand_1 operator operand_2`. */
function evaluation(operand1: unknown, operator: string, operand2: unknown) {
  return task(
    'evaluation',
    {
      all_true_flag: true,
      evaluation_groups: [{ all_true_flag: true, evaluations: [{ query: '', operand_1: operand1, operator, operand_2: operand2 }] }],
    },
    { return_value: null },
  );
}

describe('references to nothing set, through jobs', () => {
  it('evaluation: compares an unset job variable and an absent outgoing value as nothing and takes the branch that says so', async () => {
    const wf = workflowDocument(
      'evaluate-unset',
      {
        a1: task('newVariable', { name: 'greeting', value: 'hi' }, { value: null }),
        e2: evaluation({ task: 'job', variable: 'retryCount' }, '==', { task: 'a1', variable: 'absent' }),
        s3: task('newVariable', { name: 'branch', value: 'nothing set' }),
        f4: task('newVariable', { name: 'branch', value: 'set' }),
      },
      [
        ['workflow_start', 'a1'],
        ['a1', 'e2'],
        ['e2', 's3', 'success'],
        ['e2', 'f4', 'failure'],
        ['s3', 'workflow_end'],
        ['f4', 'workflow_end'],
      ],
    );
    const job = await done((await h.run(wf))._id);
    expect(job.status).toBe('complete');
    expect(job.tasks.e2).toMatchObject({
      status: 'complete',
      metrics: { finish_state: 'success' },
      variables: { outgoing: { return_value: true } },
    });
    expect(job.variables.branch).toBe('nothing set');
  });

  it('childJob: a variable the parent does not have is not passed; the child reads it as unset and completes', async () => {
    h.workflows.set(
      'reads-cidr',
      workflowDocument(
        'reads-cidr',
        {
          m1: task(
            'merge',
            {
              data_to_merge: [
                { key: 'cidr', value: { task: 'job', variable: 'cidrBlock' } },
                { key: 'name', value: { task: 'job', variable: 'name' } },
              ],
            },
            { merged_object: '$var.job.merged' },
          ),
        },
        [
          ['workflow_start', 'm1'],
          ['m1', 'workflow_end'],
        ],
      ),
    );
    const parent = parentOf('passes-vpc-subnet', 'reads-cidr', {
      cidrBlock: { task: 'job', variable: 'cidrBlock' },
      name: { task: 'static', value: 'vpc-a' },
    });
    const job = await done((await h.run(parent, { vpcSubnet: '10.0.0.0/24' }))._id);
    expect(job.status).toBe('complete');
    const child = job.tasks.cj?.variables?.outgoing?.job_details as { status: string; variables: Record<string, unknown> };
    expect(child.status).toBe('complete');
    expect(child.variables).toMatchObject({ name: 'vpc-a', merged: { name: 'vpc-a' } });
    expect(Object.hasOwn(child.variables, 'cidrBlock')).toBe(false);
    expect(Object.hasOwn(child.variables.merged as object, 'cidr')).toBe(false);
  });

  it('ViewData: shows an error variable only the error path sets as absent, waits for a person, and the job goes on', async () => {
    const view: WorkflowTask = {
      name: 'ViewData',
      app: 'WorkFlowEngine',
      type: 'manual',
      variables: {
        incoming: {
          header: 'ServiceNow Error',
          message: 'What went wrong',
          body: '$var.job.serviceNowError',
          btn_success: 'OK',
          btn_failure: '',
        },
        outgoing: {},
      },
    };
    const wf = workflowDocument('show-unset-error', { v1: view }, [
      ['workflow_start', 'v1'],
      ['v1', 'workflow_end'],
    ]);
    const started = await h.run(wf);
    const waiting = await h.waitUntil(started._id, (j) => j.tasks.v1?.status === 'running', 'v1 waiting');
    const shown = waiting.tasks.v1?.variables?.resolved as Record<string, unknown>;
    expect(shown).toEqual({ header: 'ServiceNow Error', message: 'What went wrong', btn_success: 'OK', btn_failure: '' });
    // the reference stays in the record, beside what was shown
    expect(waiting.tasks.v1?.variables?.incoming?.body).toBe('$var.job.serviceNowError');
    await h.engine.finishTask(waiting, 'v1', { finish_state: 'success' }, 'tester');
    const job = await done(started._id);
    expect(job.status).toBe('complete');
    expect(job.tasks.v1).toMatchObject({ status: 'complete', metrics: { finish_state: 'success' } });
  });

  it("an app's task and an adapter's task receive null for an unset job variable and for the outgoing value of a task that has not run", async () => {
    const calls: { operation: string; input: CallInput }[] = [];
    h.services.set('mop.RunCommandTemplate', async (input) => {
      calls.push({ operation: 'mop.RunCommandTemplate', input });
      return { result: 'ran' };
    });
    h.services.set('admin.runTask', async (input) => {
      calls.push({ operation: 'admin.runTask', input });
      return { number: 'INC1' };
    });
    const wf = workflowDocument(
      'apps-get-null',
      {
        m1: {
          name: 'RunCommandTemplate',
          app: 'MOP',
          type: 'automatic',
          variables: { incoming: { template: '$var.job.template', devices: '$var.q3.return_data', step: 1 }, outgoing: { result: null } },
        },
        s2: {
          name: 'createIncident',
          app: 'Servicenow',
          type: 'automatic',
          variables: {
            incoming: { description: '$var.job.serviceNowError', caller: '$var.m1.caller', summary: '$var.m1.result' },
            outgoing: { number: '$var.job.incident' },
          },
        },
        q3: task('query', { pass_on_null: true, query: 'x', obj: { x: 1 } }, { return_data: null }),
      },
      [
        ['workflow_start', 'm1'],
        ['m1', 's2'],
        ['s2', 'q3'],
        ['q3', 'workflow_end'],
      ],
    );
    const job: JobRecord = await done((await h.run(wf))._id);
    expect(job.status).toBe('complete');
    expect(calls.map((c) => c.operation)).toEqual(['mop.RunCommandTemplate', 'admin.runTask']);
    const mop = calls[0]?.input.body as Record<string, unknown>;
    expect(mop).toEqual({ template: null, devices: null, step: 1 });
    const adapter = calls[1]?.input.body as { app: string; method: string; incoming: Record<string, unknown> };
    expect(adapter).toMatchObject({ app: 'Servicenow', method: 'createIncident' });
    expect(adapter.incoming).toEqual({ description: null, caller: null, summary: 'ran' });
    expect(job.variables.incident).toBe('INC1');
  });

  it('transformation: a JST incoming from an unset job variable is absent, one from a missing output of an earlier JST null', async () => {
    const received: unknown[] = [];
    h.services.set('studio.runTransformation', async (input) => {
      received.push(input.body);
      return (input.params as { transformationId: string }).transformationId === 'jst-first' ? { vpcId: 'vpc-1' } : { done: true };
    });
    const wf = workflowDocument(
      'jst-unset',
      {
        t1: task('transformation', { tr_id: 'jst-first', variableMap: {} }, { vpcId: null }),
        t2: task(
          'transformation',
          { tr_id: 'jst-second', variableMap: { vpc: '$var.t1.vpcId', subnet: '$var.t1.subnetId', region: '$var.job.region' } },
          { done: '$var.job.done' },
        ),
      },
      [
        ['workflow_start', 't1'],
        ['t1', 't2'],
        ['t2', 'workflow_end'],
      ],
    );
    const job = await done((await h.run(wf))._id);
    expect(job.status).toBe('complete');
    expect(received[1]).toMatchObject({ incoming: { vpc: 'vpc-1', subnet: null } });
    expect(Object.hasOwn((received[1] as { incoming: object }).incoming, 'region')).toBe(false);
    expect(job.variables.done).toBe(true);
  });
});
