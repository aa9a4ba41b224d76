import { diffLines, mopView } from '../src/api/mop-view-data';

/** How the console reads the views of MOP's manual tasks (services/mop/src/domain/manual-tasks.ts writes them). */
describe("a MOP manual task's view", () => {
  const results = {
    name: 'uplink-check',
    result: false,
    devices: [
      { device: 'edge-1', passed: true, commands: [{ command: 'show version', result: true, failedRules: [], response: 'IOS' }] },
      {
        device: 'edge-2',
        passed: false,
        commands: [
          {
            command: 'show run int Gi0/1',
            result: false,
            failedRules: [{ rule: 'description x', eval: 'contains', severity: 'error' }, { rule: '^ shutdown' }],
            response: ' shutdown',
          },
          { command: 'show run int <!intf!>', result: false, skipped: true, message: 'variable "intf" has no value', failedRules: [] },
        ],
      },
    ],
  };

  it('reads template results device by device, filling what an older view leaves out', () => {
    const view = mopView(results);
    expect(view?.kind).toBe('results');
    if (view?.kind !== 'results') return;
    expect(view.results.devices.map((d) => [d.device, d.passed, d.commands.length])).toEqual([
      ['edge-1', true, 1],
      ['edge-2', false, 2],
    ]);
    expect(view.results.devices[1]?.commands[0]?.failedRules[1]).toEqual({ rule: '^ shutdown', eval: 'contains', severity: 'error' });
    expect(view.results.devices[1]?.commands[1]).toMatchObject({ skipped: true, message: 'variable "intf" has no value', response: '' });
  });

  it("draws no view of chooseDevice's list of names, nor of anything else: the console shows those as JSON", () => {
    expect(mopView({ devices: ['edge-1', 'edge-2'], incoming: {} })).toBeUndefined();
    expect(mopView({ job: { _id: 'x' }, metrics: {} })).toBeUndefined();
  });

  it('reads a diff before and after, counting only the outputs that changed', () => {
    const unchanged = { diff: [{ type: 'unchanged', value: 'IOS\n' }], added: 0, removed: 0 };
    const changed = { diff: [{ type: 'removed', value: ' shutdown\n' }], added: 0, removed: 1 };
    const view = mopView({
      pre: results,
      post: results,
      diffs: [
        { device: 'edge-1', command: 'show version', diff: unchanged },
        { device: 'edge-2', command: 'show run int Gi0/1', diff: changed },
        { device: 'edge-3', command: 'broken', diff: 'not a diff' },
      ],
    });
    expect(view).toMatchObject({ kind: 'templatesDiff', changed: 1, diffs: [{ device: 'edge-1' }, { device: 'edge-2' }] });
    expect(mopView({ diff: [{ type: 'added', value: 'a\n' }], added: 1, removed: 0, unified: '' })).toMatchObject({ kind: 'configDiff' });
  });

  it('keeps three unchanged lines around each change and says how many it leaves out', () => {
    const ten = (from: number) => Array.from({ length: 10 }, (_, i) => `line ${from + i}`).join('\n') + '\n';
    const lines = diffLines([
      { type: 'unchanged', value: ten(1) },
      { type: 'removed', value: 'old\n' },
      { type: 'added', value: 'new\n' },
      { type: 'unchanged', value: ten(11) },
      { type: 'added', value: 'tail\n' },
      { type: 'unchanged', value: 'a\nb\n' },
    ]);
    expect(lines).toEqual([
      { type: 'skipped', count: 7 },
      { type: 'unchanged', text: 'line 8' },
      { type: 'unchanged', text: 'line 9' },
      { type: 'unchanged', text: 'line 10' },
      { type: 'removed', text: 'old' },
      { type: 'added', text: 'new' },
      { type: 'unchanged', text: 'line 11' },
      { type: 'unchanged', text: 'line 12' },
      { type: 'unchanged', text: 'line 13' },
      { type: 'skipped', count: 4 },
      { type: 'unchanged', text: 'line 18' },
      { type: 'unchanged', text: 'line 19' },
      { type: 'unchanged', text: 'line 20' },
      { type: 'added', text: 'tail' },
      { type: 'unchanged', text: 'a' },
      { type: 'unchanged', text: 'b' },
    ]);
  });
});
