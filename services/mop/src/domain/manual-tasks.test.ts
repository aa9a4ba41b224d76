import type { JobDocument } from '@nap/contracts';
import { diffBatch } from './diff';
import type { DiffEngine } from './diff';
import { diffConfigView, incomingOf, resolveReference, reviewSummaryView, templateResultsView, templatesDiffView } from './manual-tasks';

const run = (response: string, result: boolean) => ({
  name: 'checks',
  all_pass_flag: true,
  result,
  commands_results: [
    {
      raw: 'show vlan',
      evaluated: 'show vlan',
      device: 'r1',
      response,
      result,
      all_pass_flag: true,
      parameters: {},
      rules: [{ rule: 'VLAN 30', eval: 'contains', severity: 'error', result }],
    },
  ],
});

const job: JobDocument = {
  _id: 'j1',
  name: 'Create VLAN',
  status: 'running',
  variables: { templateResults: run('VLAN 10', false) },
  tasks: {
    workflow_start: { name: 'workflow_start' },
    e4f3: { name: 'RunCommandTemplate', app: 'MOP', status: 'complete', variables: { outgoing: { return_data: run('VLAN 10\n', false) } } },
    '643c': {
      name: 'RunCommandTemplate',
      app: 'MOP',
      status: 'complete',
      variables: { outgoing: { return_data: run('VLAN 10\nVLAN 30\n', true) } },
    },
    a1: {
      name: 'runTemplatesDiff',
      app: 'MOP',
      type: 'manual',
      status: 'running',
      variables: { incoming: { pre: '$var.e4f3.return_data', post: '$var.643c.return_data' } },
    },
    a2: {
      name: 'viewTemplateResults',
      app: 'MOP',
      type: 'manual',
      status: 'running',
      variables: { incoming: { mop_template_results: '$var.job.templateResults' } },
    },
  },
};

/** Diffs in this thread without a time limit, as the service's worker does. */
const differ: DiffEngine = {
  timeoutMs: Infinity,
  diff(inputs) {
    const outcome = diffBatch(inputs, Infinity);
    return outcome.ok ? Promise.resolve(outcome.diffs) : Promise.reject(new Error(`diff ${outcome.index} gave up`));
  },
};

describe('manual task views', () => {
  it('resolves $var references of the incoming variables against the job', () => {
    expect(resolveReference(job, '$var.job.templateResults')).toBe((job.variables as Record<string, unknown>).templateResults);
    expect(resolveReference(job, '$var.e4f3.return_data.result')).toBe(false);
    expect(resolveReference(job, 'literal')).toBe('literal');
    expect(Object.keys(incomingOf(job, job.tasks.a1 as never))).toEqual(['pre', 'post']);
  });

  it('runTemplatesDiff shows each command output diff per device', async () => {
    const incoming = incomingOf(job, job.tasks.a1 as never);
    const view = await templatesDiffView(incoming.pre, incoming.post, differ);
    expect(view).toMatchObject({ changed: 1, diffs: [{ device: 'r1', command: 'show vlan', diff: { added: 1, removed: 0 } }] });
  });

  it('viewTemplateResults lists devices with their failed rules', () => {
    const view = templateResultsView(incomingOf(job, job.tasks.a2 as never).mop_template_results);
    expect(view).toMatchObject({
      name: 'checks',
      result: false,
      devices: [{ device: 'r1', passed: false, commands: [{ command: 'show vlan', failedRules: [{ rule: 'VLAN 30' }] }] }],
    });
  });

  it("viewTemplateResults judges each device under the template's passRule: one passing command is enough when it is false", () => {
    const entry = (evaluated: string, result: boolean) => ({ ...run('', result).commands_results[0], evaluated, raw: evaluated });
    const anyOf = {
      name: 'any-uplink',
      all_pass_flag: false,
      result: true,
      commands_results: [entry('show int Gi0/1', false), entry('show int Gi0/2', true)],
    };
    expect(templateResultsView(anyOf)).toMatchObject({ result: true, devices: [{ device: 'r1', passed: true }] });
    expect(templateResultsView({ ...anyOf, all_pass_flag: true, result: false })).toMatchObject({
      devices: [{ device: 'r1', passed: false }],
    });
    expect(templateResultsView('not a run')).toEqual({ name: null, result: null, devices: [] });
  });

  it('diffConfig diffs the two configurations it received, reviewSummary lists the tasks', async () => {
    expect(await diffConfigView({ value_a: 'a\n', value_b: 'b\n' }, differ)).toMatchObject({ added: 1, removed: 1 });
    expect(await diffConfigView({ running: 'a\n', candidate: 'a\nb\n' }, differ)).toMatchObject({ added: 1, removed: 0 });
    const summary = reviewSummaryView(job);
    expect(summary).toMatchObject({ job: { _id: 'j1', status: 'running' } });
    expect((summary.tasks as { id: string }[]).map((t) => t.id)).toEqual(['e4f3', '643c', 'a1', 'a2']);
  });
});
