import { variablesIn } from '@nap/contracts';
import type { AnalyticTemplate } from '@nap/contracts';
import { runAnalyticTemplate } from './analytic';
import { diffConfigs } from './diff';
import type { ConfigDiff } from './diff';
import { nextFreeName } from './names';
import { createInlineRegexEngine } from './regex-engine';
import { expandCommand, substitute } from './variables';

const engine = createInlineRegexEngine();

describe('variables', () => {
  it('finds, substitutes and expands <!name!>', () => {
    expect(variablesIn('show interfaces <!type!> <!id!> <!type!>')).toEqual(['type', 'id']);
    expect(substitute('ping <!address!> repeat <!repeat!>', { address: '192.0.2.1', repeat: 5 })).toEqual({
      text: 'ping 192.0.2.1 repeat 5',
      missing: [],
      invalid: [],
    });
    expect(substitute('<!a!><!b!>', { a: true })).toEqual({ text: 'true<!b!>', missing: ['b'], invalid: [] });
  });

  it('runs a command once per element of an array (product of several arrays, in order)', () => {
    expect(expandCommand('show vlan <!vlan!>', { vlan: [10, 20] })).toEqual({
      kind: 'run',
      expansions: [
        { evaluated: 'show vlan 10', parameters: { vlan: 10 } },
        { evaluated: 'show vlan 20', parameters: { vlan: 20 } },
      ],
    });
    const both = expandCommand('show int <!t!><!n!>', { t: ['Gi', 'Te'], n: ['0/1', '0/2'] });
    expect(both.kind === 'run' ? both.expansions.map((e) => e.evaluated) : []).toEqual([
      'show int Gi0/1',
      'show int Gi0/2',
      'show int Te0/1',
      'show int Te0/2',
    ]);
  });

  it('skips a command whose variable is missing, empty or an object, naming it', () => {
    expect(expandCommand('dir <!flash!>/<!image!>', { flash: 'flash:' })).toMatchObject({
      kind: 'skip',
      message: expect.stringContaining('"image"'),
    });
    expect(expandCommand('show vlan <!vlan!>', { vlan: [] })).toMatchObject({
      kind: 'skip',
      message: expect.stringContaining('empty list'),
    });
    expect(expandCommand('show vlan <!vlan!>', { vlan: { id: 1 } })).toMatchObject({
      kind: 'skip',
      message: expect.stringContaining('"vlan"'),
    });
  });
});

describe('analytic templates', () => {
  const pre = {
    name: 'pre',
    commands_results: [
      {
        raw: 'show ip route summary',
        evaluated: 'show ip route summary',
        device: 'r1',
        response: 'Total routes: 120\nConnected 4\nStatic 2',
      },
      { raw: 'show vlan', evaluated: 'show vlan', device: 'r1', response: 'VLAN 10 active\nVLAN 20 active' },
    ],
  };
  const post = {
    name: 'post',
    commands_results: [
      {
        raw: 'show ip route summary',
        evaluated: 'show ip route summary',
        device: 'r1',
        response: 'Total routes: 118\nConnected 4\nStatic 2',
      },
      { raw: 'show vlan', evaluated: 'show vlan', device: 'r1', response: 'VLAN 10 active\nVLAN 20 active\nVLAN 30 active' },
    ],
  };
  const analytic = (rules: AnalyticTemplate['prepostCommands']): AnalyticTemplate => ({
    name: 'compare',
    passRule: true,
    prepostCommands: rules ?? [],
  });

  const cases: [string, NonNullable<AnalyticTemplate['prepostCommands']>[number]['rules'], boolean][] = [
    [
      'regex = fails when the route count changed',
      [{ type: 'regex', preRegex: 'Total routes: (\\d+)', postRegex: 'Total routes: (\\d+)', evaluation: '=' }],
      false,
    ],
    [
      'regex >= passes (post 118 <= pre 120 read as pre >= post)',
      [{ type: 'regex', preRegex: 'Total routes: (\\d+)', postRegex: 'Total routes: (\\d+)', evaluation: '>=' }],
      true,
    ],
    ['regex with postRegex absent uses preRegex', [{ type: 'regex', preRegex: 'Static (\\d+)', evaluation: '=' }], true],
    ['matches passes when the pattern finds the same', [{ type: 'matches', rule: 'Connected \\d+' }], true],
    ['!matches passes when the pattern finds something else', [{ type: '!matches', rule: 'Total routes: \\d+' }], true],
    ['matches fails when the pattern finds something else', [{ type: 'matches', preRegex: 'Total routes: \\d+' }], false],
    ['unknown type fails', [{ type: 'fuzzy' }], false],
  ];
  it.each(cases)('%s', async (_what, rules, expected) => {
    const out = await runAnalyticTemplate(
      analytic([{ preRawCommand: 'show ip route summary', postRawCommand: 'show ip route summary', passRule: true, rules }]),
      pre,
      post,
      {},
      engine,
    );
    expect(out.result).toBe(expected);
    expect(out.commands_results).toHaveLength(1);
  });

  it('pairs commands by device and reports values, and a missing side fails naming it', async () => {
    const out = await runAnalyticTemplate(
      analytic([
        {
          preRawCommand: 'show vlan',
          postRawCommand: 'show vlan',
          rules: [{ type: 'matches', rule: 'VLAN \\d+ active', severity: 'warning' }],
        },
        { preRawCommand: 'show clock', postRawCommand: 'show clock', rules: [{ type: 'matches' }] },
      ]),
      pre,
      post,
      {},
      engine,
    );
    expect(out.commands_results[0]).toMatchObject({
      device: 'r1',
      result: false,
      rules: [{ type: 'matches', severity: 'warning', result: false, preValue: ['VLAN 10 active', 'VLAN 20 active'] }],
    });
    expect(out.commands_results[1]).toMatchObject({ result: false, message: expect.stringContaining('show clock') });
    const ignoring = await runAnalyticTemplate(
      {
        ...analytic([
          { preRawCommand: 'show vlan', postRawCommand: 'show vlan', rules: [{ type: 'matches', rule: 'VLAN \\d+', severity: 'warning' }] },
        ]),
        ignoreWarnings: true,
      },
      pre,
      post,
      {},
      engine,
    );
    expect(ignoring.result).toBe(true);
  });
});

describe('diff and names', () => {
  it('diffs lines in order with counts and a unified form', () => {
    const d = diffConfigs('hostname r1\nvlan 10\nvlan 20\n', 'hostname r1\nvlan 10\nvlan 30\n') as ConfigDiff;
    expect(d.diff).toEqual([
      { type: 'unchanged', value: 'hostname r1\nvlan 10\n', count: 2 },
      { type: 'removed', value: 'vlan 20\n', count: 1 },
      { type: 'added', value: 'vlan 30\n', count: 1 },
    ]);
    expect(d).toMatchObject({ added: 1, removed: 1 });
    expect(d.unified).toContain('-vlan 20');
    expect(d.unified).toContain('+vlan 30');
    expect(diffConfigs('a\n', 'a\n')).toMatchObject({ added: 0, removed: 0 });
  });

  it('picks the next free "name (n)"', () => {
    expect(nextFreeName('t', new Set())).toBe('t');
    expect(nextFreeName('t', new Set(['t']))).toBe('t (1)');
    expect(nextFreeName('t', new Set(['t', 't (1)', 't (3)']))).toBe('t (2)');
  });
});
