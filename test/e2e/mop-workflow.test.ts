import type { AnalyticRunResult, JobDocument, TemplateRunResult, WorkflowDocument } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { task, workflowDocument } from '@nap/testing';
import { startCliSimulator } from '@nap/lab';
import type { CliSimulator } from '@nap/lab';
import { addSimulator } from '../../services/mop/test/lab-devices';
import { jobReaching } from '../support/automation';

/**
 * Methods of procedure inside workflows, through the HTTP interface of the whole platform: mop
 * tasks (`app: 'MOP'`) and a gateway configuration change (`app: 'GatewayDevices'`) run against a
 * Cisco IOS simulator, and a mop manual task shows a waiting job's template results.
 */

let platform: TestPlatform;
let token: string;
const sims: CliSimulator[] = [];

/** The interface the change works on and the description it gives it. */
const INTERFACE = 'GigabitEthernet0/1';
const DESCRIPTION = 'customer-A uplink';

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
  for (const name of ['wf-ios-1', 'wf-ios-2']) {
    const sim = await startCliSimulator({ deviceType: 'cisco_ios', hostname: name.replace(/-/g, ''), startPrivileged: true });
    sims.push(sim);
    await addSimulator(platform, token, name, sim);
  }
  // checks that hold only after the change: the interface carries the description
  const checks = {
    name: 'wf-interface-checks',
    os: 'cisco_ios',
    passRule: true,
    commands: [
      {
        command: 'show running-config interface <!intf!>',
        passRule: true,
        rules: [{ rule: 'description <!desc!>', eval: 'contains', severity: 'error' }],
      },
      { command: 'show interfaces <!intf!>', passRule: true, rules: [{ rule: 'line protocol is', eval: 'contains', severity: 'error' }] },
    ],
  };
  expect((await http('POST', '/mop/createTemplate', { mop: checks })).status).toBe(200);
  const analytic = {
    name: 'wf-interface-compare',
    os: 'cisco_ios',
    passRule: true,
    prepostCommands: [
      {
        // passes because of the change: the description appears, the addressing stays as it was
        preRawCommand: 'show running-config interface <!intf!>',
        postRawCommand: 'show running-config interface <!intf!>',
        passRule: true,
        rules: [
          { type: '!matches', rule: 'description .*' },
          { type: 'matches', rule: 'ip address.*' },
        ],
      },
      {
        // fails because of the change: it expects the interface's description lines to stay the same
        preRawCommand: 'show interfaces <!intf!>',
        postRawCommand: 'show interfaces <!intf!>',
        passRule: true,
        rules: [
          { type: 'matches', rule: 'Description: .*' },
          { type: 'regex', preRegex: 'line protocol is (\\w+)', postRegex: 'line protocol is (\\w+)', evaluation: '=' },
        ],
      },
    ],
  };
  expect((await http('POST', '/mop/createAnalyticTemplate', { template: analytic })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  for (const sim of sims) await sim.stop();
  await platform?.stop();
});

function http(method: string, route: string, body?: unknown): ReturnType<TestPlatform['http']> {
  return platform.http(method, route, { token, ...(body !== undefined ? { body } : {}) });
}

async function create(doc: WorkflowDocument): Promise<void> {
  const res = await http('POST', '/automation-studio/automations', { automation: doc });
  if (res.status !== 200) throw new Error(`Creating workflow ${doc.name} failed: ${res.status} ${JSON.stringify(res.body)}`);
}

async function start(name: string, variables: Record<string, unknown>): Promise<string> {
  const res = await http('POST', `/workflow_engine/startJobWithOptions/${encodeURIComponent(name)}`, {
    options: { description: 'mop workflow', type: 'automation', variables },
  });
  expect(res.status).toBe(200);
  const job = res.body as JobDocument;
  expect(job).toMatchObject({ name, status: 'running' });
  return job._id;
}

async function getJob(id: string): Promise<JobDocument> {
  const res = await http('GET', `/operations-manager/jobs/${id}`);
  expect(res.status).toBe(200);
  return (res.body as { data: JobDocument }).data;
}

/** Reads the job until `check` holds (bounded); a timeout shows the job as last read. */
function until(id: string, check: (job: JobDocument) => boolean, what: string, timeoutMs = 20_000): Promise<JobDocument> {
  return jobReaching(`Job ${id} reaching ${what}`, () => getJob(id), check, { timeoutMs });
}

const ended = (job: JobDocument): boolean => ['complete', 'error', 'canceled'].includes(job.status);

const runTemplate = (outgoingTarget: string) =>
  task(
    'RunCommandTemplate',
    { template: 'wf-interface-checks', variables: '$var.job.checkVariables', devices: '$var.job.devices' },
    { mop_template_results: outgoingTarget },
    { app: 'MOP' },
  );

describe('a method of procedure as a workflow', () => {
  it('runs a command template before and after a configuration change and compares them with an analytic template', async () => {
    await create(
      workflowDocument(
        'mop-wf-change',
        {
          pre1: runTemplate('$var.job.preResults'),
          chg2: task(
            'setConfig',
            { name: '$var.job.device', config: '$var.job.change' },
            { result: '$var.job.changeResult' },
            { app: 'GatewayDevices' },
          ),
          post3: runTemplate('$var.job.postResults'),
          cmp4: task(
            'runAnalyticsTemplate',
            {
              analytic_template_name: 'wf-interface-compare',
              pre: '$var.pre1.mop_template_results',
              post: '$var.post3.mop_template_results',
              variables: '$var.job.checkVariables',
            },
            { analytic_results: '$var.job.analysis' },
            { app: 'MOP' },
          ),
        },
        [
          ['workflow_start', 'pre1'],
          ['pre1', 'chg2'],
          ['chg2', 'post3'],
          ['post3', 'cmp4'],
          ['cmp4', 'workflow_end'],
        ],
      ),
    );
    const checkVariables = { intf: INTERFACE, desc: DESCRIPTION };
    const id = await start('mop-wf-change', {
      device: 'wf-ios-1',
      devices: ['wf-ios-1'],
      checkVariables,
      change: [`interface ${INTERFACE}`, `description ${DESCRIPTION}`],
    });
    const job = await until(id, ended, 'an end');

    expect(job).toMatchObject({ status: 'complete', error: [] });
    for (const taskId of ['workflow_start', 'pre1', 'chg2', 'post3', 'cmp4', 'workflow_end']) {
      expect({ taskId, status: job.tasks[taskId]?.status }).toEqual({ taskId, status: 'complete' });
    }
    for (const taskId of ['pre1', 'chg2', 'post3', 'cmp4']) expect(job.tasks[taskId]?.metrics).toMatchObject({ finish_state: 'success' });

    // before: the description is missing, so the check fails; after: it holds
    const pre = job.tasks.pre1?.variables?.outgoing?.mop_template_results as TemplateRunResult;
    const post = job.tasks.post3?.variables?.outgoing?.mop_template_results as TemplateRunResult;
    expect(job.variables).toMatchObject({ preResults: pre, postResults: post });
    expect(pre).toMatchObject({
      name: 'wf-interface-checks',
      result: false,
      commands_results: [
        {
          device: 'wf-ios-1',
          evaluated: `show running-config interface ${INTERFACE}`,
          result: false,
          rules: [{ rule: `description ${DESCRIPTION}`, result: false }],
        },
        { device: 'wf-ios-1', evaluated: `show interfaces ${INTERFACE}`, result: true },
      ],
    });
    expect(pre.commands_results[0]?.response).not.toContain('description');
    expect(post).toMatchObject({
      name: 'wf-interface-checks',
      result: true,
      commands_results: [
        {
          device: 'wf-ios-1',
          evaluated: `show running-config interface ${INTERFACE}`,
          result: true,
          response: expect.stringContaining(`description ${DESCRIPTION}`),
          rules: [{ rule: `description ${DESCRIPTION}`, result: true }],
        },
        {
          device: 'wf-ios-1',
          evaluated: `show interfaces ${INTERFACE}`,
          result: true,
          response: expect.stringContaining(`Description: ${DESCRIPTION}`),
        },
      ],
    });
    expect(pre.runId).toEqual(expect.any(String));
    expect(post.runId).not.toBe(pre.runId);

    // the change itself, as the gateway reported it
    const variables = job.variables as Record<string, unknown>;
    expect(variables.changeResult).toMatchObject({ status: 'success', name: 'wf-ios-1', failed: false, errors: [] });

    // the analytic result: the first pair passes because of the change, the second fails because of it
    const analysis = job.tasks.cmp4?.variables?.outgoing?.analytic_results as AnalyticRunResult;
    expect(variables.analysis).toEqual(analysis);
    expect(analysis).toMatchObject({
      name: 'wf-interface-compare',
      result: false,
      commands_results: [
        {
          device: 'wf-ios-1',
          preRawCommand: 'show running-config interface <!intf!>',
          result: true,
          rules: [
            { type: '!matches', result: true, preValue: [], postValue: [`description ${DESCRIPTION}`] },
            { type: 'matches', result: true, preValue: ['ip address'], postValue: ['ip address'] },
          ],
        },
        {
          device: 'wf-ios-1',
          preRawCommand: 'show interfaces <!intf!>',
          result: false,
          rules: [
            { type: 'matches', result: false, preValue: [], postValue: [`Description: ${DESCRIPTION}`] },
            { type: 'regex', result: true, preValue: 'down', postValue: 'down' },
          ],
        },
      ],
    });
    expect(analysis.commands_results).toHaveLength(2);

    // the other simulator was not touched by the job
    const untouched = await http('POST', '/mop/RunCommandTemplate', {
      template: 'wf-interface-checks',
      variables: checkVariables,
      devices: ['wf-ios-2'],
    });
    expect(untouched).toMatchObject({ status: 200, body: { result: false } });
  });

  it('waits at a mop manual task that shows the template results, and completes once the task is finished', async () => {
    await create(
      workflowDocument(
        'mop-wf-review',
        {
          run1: runTemplate('$var.job.results'),
          view2: task(
            'viewTemplateResults',
            { mop_template_results: '$var.run1.mop_template_results' },
            { reviewed: '$var.job.reviewed' },
            { app: 'MOP', type: 'manual', summary: 'Review the template results', view: '/mop/task/viewTemplateResults' },
          ),
        },
        [
          ['workflow_start', 'run1'],
          ['run1', 'view2'],
          ['view2', 'workflow_end'],
        ],
      ),
    );
    const id = await start('mop-wf-review', {
      devices: ['wf-ios-1', 'wf-ios-2'],
      checkVariables: { intf: 'GigabitEthernet0/0', desc: 'uplink to core' },
    });
    const waiting = await until(id, (j) => j.tasks.view2?.status === 'running' || ended(j), 'view2 waiting');
    expect(waiting).toMatchObject({
      status: 'running',
      tasks: { run1: { status: 'complete' }, view2: { status: 'running' }, workflow_end: { status: 'incomplete' } },
    });

    const shown = await http('GET', `/mop/task/viewTemplateResults?jobId=${id}&taskId=view2`);
    expect(shown.status).toBe(200);
    const command = (name: string, response: string) => ({
      command: name,
      result: true,
      failedRules: [],
      response: expect.stringContaining(response),
    });
    expect(shown.body).toEqual({
      jobId: id,
      taskId: 'view2',
      task: 'viewTemplateResults',
      status: 'running',
      finish: { method: 'POST', path: `/operations-manager/jobs/${id}/tasks/view2/finish` },
      view: {
        name: 'wf-interface-checks',
        result: true,
        decide: expect.any(String),
        devices: ['wf-ios-1', 'wf-ios-2'].map((device) => ({
          device,
          passed: true,
          commands: [
            command('show running-config interface GigabitEthernet0/0', 'description uplink to core'),
            command('show interfaces GigabitEthernet0/0', 'Description: uplink to core'),
          ],
        })),
      },
    });
    // what the view shows is the run the job holds
    const held = waiting.tasks.run1?.variables?.outgoing?.mop_template_results as TemplateRunResult;
    expect(
      (shown.body as { view: { devices: { commands: { response: string }[] }[] } }).view.devices.flatMap((d) =>
        d.commands.map((c) => c.response),
      ),
    ).toEqual(held.commands_results.map((r) => r.response));

    const wrongTask = await http('GET', `/mop/task/viewTemplateResults?jobId=${id}&taskId=no-such-task`);
    expect(wrongTask.status).toBe(404);

    // the summary's download is the job document itself, as a file to save (not a JSON string of it)
    const download = await http('GET', `/mop/task/reviewSummary?jobId=${id}&taskId=view2&download=true`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toContain('application/json');
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="job-${id}.json"; filename*=UTF-8''job-${id}.json`);
    expect(download.body).toMatchObject({ _id: id, name: 'mop-wf-review', tasks: { view2: { status: 'running' } } });

    const finish = await http('POST', `/operations-manager/jobs/${id}/tasks/view2/finish`, { variables: { reviewed: true } });
    expect(finish.status).toBe(200);
    const job = await until(id, ended, 'an end');
    expect(job).toMatchObject({
      status: 'complete',
      error: [],
      variables: { reviewed: true, results: held },
      tasks: {
        run1: { status: 'complete' },
        view2: { status: 'complete', metrics: { finish_state: 'success' }, variables: { outgoing: { reviewed: true } } },
        workflow_end: { status: 'complete' },
      },
    });
    const after = await http('GET', `/mop/task/viewTemplateResults?jobId=${id}&taskId=view2`);
    expect(after).toMatchObject({ status: 200, body: { status: 'complete' } });
  });
});
