import type { JobDocument } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { task, workflowDocument } from '@nap/testing';
import type { Edge } from '@nap/testing';
import { startNsoPeer } from '@nap/lab';
import type { NsoPeer } from '@nap/lab';
import { addNsoAdapter } from '../../services/orch-proxy/test/nso-adapter';
import { jobReaching } from '../support/automation';

/**
 * An orchestrator change as a workflow, through the HTTP interface of the whole platform: tasks of
 * app OrchManager read a device's configuration (restQuery), change a leaf (setLeaf: a dry run
 * first, then the commit) and read it back, and evaluation tasks check each step, against the lab's
 * NSO peer.
 */

let platform: TestPlatform;
let token: string;
let peer: NsoPeer;

const HOSTNAME = '/restconf/data/tailf-ncs:devices/device=C-IOS1/config/tailf-ned-cisco-ios:hostname';

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
  peer = await startNsoPeer();
  await addNsoAdapter(platform, token, 'nso-wf', peer);
}, 30_000);

afterAll(async () => {
  await platform?.stop();
  await peer?.close();
});

function http(method: string, route: string, body?: unknown): ReturnType<TestPlatform['http']> {
  return platform.http(method, route, { token, ...(body !== undefined ? { body } : {}) });
}

/** An evaluation task: `query` over task `from`'s outgoing `variable` compared with `expected`. */
function check(from: string, variable: string, query: string, operator: string, expected: string) {
  return task(
    'evaluation',
    {
      all_true_flag: true,
      evaluation_groups: [
        {
          all_true_flag: true,
          evaluations: [{ query, operand_1: { task: from, variable }, operator, operand_2: expected, rightQuery: '' }],
        },
      ],
    },
    { return_value: null },
    { type: 'operation' },
  );
}

async function getJob(id: string): Promise<JobDocument> {
  const res = await http('GET', `/operations-manager/jobs/${id}`);
  expect(res.status).toBe(200);
  return (res.body as { data: JobDocument }).data;
}

/** Reads the job until it ends (bounded); a timeout shows the job as last read. */
function untilEnded(id: string, timeoutMs = 20_000): Promise<JobDocument> {
  return jobReaching(
    `Job ${id} ending`,
    () => getJob(id),
    (job) => ['complete', 'error', 'canceled'].includes(job.status),
    { timeoutMs },
  );
}

it('reads a device with restQuery, dry-runs then commits a leaf with setLeaf, and checks the change', async () => {
  const leaf = {
    adapterId: '$var.job.adapter',
    path: '/ncs:devices/device{<!dev!>}/config/ios:hostname',
    value: '!host!',
    variables: '$var.job.leafVariables',
    set: true,
  };
  const tasks = {
    read1: task(
      'restQuery',
      { adapterId: '$var.job.adapter', params: { path: HOSTNAME, accept: 'yang-data+json' } },
      { result: '$var.job.before' },
      { app: 'OrchManager' },
    ),
    was2: check('read1', 'result', '[0].instance_data.tailf-ned-cisco-ios:hostname', '==', 'C-IOS1'),
    dry3: task('setLeaf', { ...leaf, dryRun: true, options: 'dryrun' }, { result: '$var.job.dryRun' }, { app: 'OrchManager' }),
    diff4: check('dry3', 'result', '[0].dry_run.dry-run-result.cli.local-node.data', 'contains', '+            hostname C-IOS1-EDGE;'),
    unchanged5: task(
      'restQuery',
      { adapterId: '$var.job.adapter', params: { path: HOSTNAME, accept: 'yang-data+json' } },
      { result: '$var.job.afterDryRun' },
      { app: 'OrchManager' },
    ),
    same6: check('unchanged5', 'result', '[0].instance_data.tailf-ned-cisco-ios:hostname', '==', 'C-IOS1'),
    commit7: task('setLeaf', { ...leaf, dryRun: false, options: 'no_overwrite' }, { result: '$var.job.commit' }, { app: 'OrchManager' }),
    read8: task(
      'restQuery',
      { adapterId: '$var.job.adapter', params: { path: HOSTNAME, accept: 'yang-data+json' } },
      { result: '$var.job.after' },
      { app: 'OrchManager' },
    ),
    now9: check('read8', 'result', '[0].instance_data.tailf-ned-cisco-ios:hostname', '==', 'C-IOS1-EDGE'),
  };
  const order = ['workflow_start', ...Object.keys(tasks), 'workflow_end'];
  const edges = order.slice(1).map((to, i): Edge => [order[i] as string, to]);
  const created = await http('POST', '/automation-studio/automations', {
    automation: workflowDocument('orch-change-hostname', tasks, edges, { description: 'orchestrator leaf change' }),
  });
  expect(created.status).toBe(200);

  const started = await http('POST', '/workflow_engine/startJobWithOptions/orch-change-hostname', {
    options: { description: 'orch', type: 'automation', variables: { adapter: 'nso-wf', leafVariables: 'dev C-IOS1\nhost C-IOS1-EDGE' } },
  });
  expect(started.status).toBe(200);
  const job = await untilEnded((started.body as JobDocument)._id);

  expect(job.status).toBe('complete');
  for (const id of ['was2', 'diff4', 'same6', 'now9'])
    expect({ id, outgoing: job.tasks[id]?.variables?.outgoing }).toEqual({ id, outgoing: { return_value: true } });
  expect(job.variables).toMatchObject({
    before: [{ instance_data: { 'tailf-ned-cisco-ios:hostname': 'C-IOS1' } }],
    dryRun: [
      {
        action: 'update',
        path_evaluated: '/ncs:devices/device{C-IOS1}/config/ios:hostname',
        value_evaluated: 'C-IOS1-EDGE',
        dry_run: expect.anything(),
      },
    ],
    commit: [
      {
        action: 'update',
        path_raw: leaf.path,
        path_evaluated: '/ncs:devices/device{C-IOS1}/config/ios:hostname',
        value_raw: '!host!',
        value_evaluated: 'C-IOS1-EDGE',
      },
    ],
    after: [{ instance_data: { 'tailf-ned-cisco-ios:hostname': 'C-IOS1-EDGE' } }],
  });
  // the orchestrator saw one dry run and one real commit, in that order
  const commits = peer.requests
    .filter((r) => r.rpc === 'commit')
    .map((r) => (JSON.parse(r.body) as { params: { flags: string[] } }).params.flags);
  expect(commits).toEqual([['dry-run=cli'], ['no-overwrite']]);
});

it("fails the task with the orchestrator's error when setLeaf is refused", async () => {
  const tasks = {
    set1: task(
      'setLeaf',
      {
        adapterId: 'nso-wf',
        path: '/ncs:devices/device{NOPE}/config/ios:hostname',
        value: 'x',
        variables: '',
        set: true,
        dryRun: false,
        options: 'staging',
      },
      { result: '$var.job.result' },
      { app: 'OrchManager' },
    ),
  };
  const edges: Edge[] = [
    ['workflow_start', 'set1'],
    ['set1', 'workflow_end'],
  ];
  expect(
    (await http('POST', '/automation-studio/automations', { automation: workflowDocument('orch-refused', tasks, edges) })).status,
  ).toBe(200);
  const started = await http('POST', '/workflow_engine/startJobWithOptions/orch-refused', { options: {} });
  const job = await untilEnded((started.body as JobDocument)._id);
  expect(job.status).toBe('error');
  expect(JSON.stringify(job.tasks.set1?.variables?.error)).toContain('ORCH_PATH_NOT_FOUND');
});
