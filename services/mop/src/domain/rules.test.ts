import type { CommandRule } from '@nap/contracts';
import { createInlineRegexEngine } from './regex-engine';
import { combine, compareValues, counts, evaluateRules, parseOperand } from './rules';

const engine = createInlineRegexEngine();

const SHOW_VERSION = [
  'Cisco IOS Software, IOSv Software (VIOS-ADVENTERPRISEK9-M), Version 15.9(3)M6, RELEASE SOFTWARE (fc1)',
  'router1 uptime is 9 days, 3 hours, 4 minutes',
  'System image file is "flash0:/vios-adventerprisek9-m"',
  'Configuration register is 0x2102',
  'GigabitEthernet0/1 is up, line protocol is up',
  'GigabitEthernet0/2 is administratively down, line protocol is down',
].join('\n');

const MEMORY = [
  '                Head    Total(b)     Used(b)     Free(b)   Lowest(b)  Largest(b)',
  'Processor  7F3A2C10   399446576   140010232   259436344   258000000   257000000',
].join('\n');

async function one(rule: CommandRule, response = SHOW_VERSION, variables: Record<string, unknown> = {}) {
  const out = await evaluateRules({ response, rules: [rule], variables }, engine);
  return out.rules[0] as { result: boolean; message?: string; rule: string };
}

describe('one rule against a response', () => {
  const cases: [string, CommandRule, boolean, string?][] = [
    ['contains finds text', { rule: 'Configuration register', eval: 'contains' }, true],
    ['contains is case-sensitive by default', { rule: 'configuration register', eval: 'contains' }, false],
    ['contains with case flag ignores case', { rule: 'configuration REGISTER', eval: 'contains', flags: { case: true } }, true],
    ['contains of an empty rule passes (as users rely on for "just run it")', { rule: '', eval: 'contains' }, true],
    ['contains of missing text fails', { rule: 'Fatal', eval: 'contains' }, false],
    ['!contains of absent text passes', { rule: 'Fatal', eval: '!contains' }, true],
    ['!contains of present text fails', { rule: 'uptime', eval: '!contains' }, false],
    ['!contains with case flag sees other case', { rule: 'UPTIME', eval: '!contains', flags: { case: true } }, false],
    ['contains1 with one occurrence passes', { rule: 'Configuration register', eval: 'contains1' }, true],
    ['contains1 with two occurrences fails', { rule: 'line protocol', eval: 'contains1' }, false],
    ['contains1 with none fails', { rule: 'Fatal', eval: 'contains1' }, false],
    ['contains1 counts caselessly with case flag', { rule: 'GIGABITETHERNET0/1', eval: 'contains1', flags: { case: true } }, true],
    ['RegEx match passes', { rule: 'Version \\d+\\.\\d+', eval: 'RegEx' }, true],
    ['RegEx without match fails', { rule: 'Version 17\\.', eval: 'RegEx' }, false],
    ['RegEx honours case flag', { rule: 'VERSION 15', eval: 'RegEx', flags: { case: true } }, true],
    ['RegEx without case flag is case-sensitive', { rule: 'VERSION 15', eval: 'RegEx' }, false],
    ['RegEx ^ and $ need multiline for inner lines', { rule: '^System image.*"$', eval: 'RegEx' }, false],
    ['RegEx multiline flag anchors per line', { rule: '^System image.*"$', eval: 'RegEx', flags: { multiline: true } }, true],
    ['RegEx global flag changes nothing for a match', { rule: 'is up', eval: 'RegEx', flags: { global: true } }, true],
    [
      'RegEx as users write interface checks',
      { rule: 'GigabitEthernet0/2.*\\s+.*(down|up)', eval: 'RegEx', flags: { global: true, multiline: true, case: true } },
      true,
    ],
    ['!RegEx without match passes', { rule: 'Fatal|Error', eval: '!RegEx' }, true],
    ['!RegEx with match fails', { rule: 'uptime is \\d+ days', eval: '!RegEx' }, false],
    ['unknown eval fails', { rule: 'x', eval: 'startsWith' }, false],
  ];
  it.each(cases)('%s', async (_what, rule, expected) => {
    expect((await one(rule)).result).toBe(expected);
  });

  it('explains an invalid pattern instead of throwing, for RegEx and !RegEx alike', async () => {
    for (const ev of ['RegEx', '!RegEx']) {
      const r = await one({ rule: '(unclosed', eval: ev });
      expect(r.result).toBe(false);
      expect(r.message).toMatch(/invalid regular expression \/\(unclosed\//);
    }
  });

  it('names an unknown eval', async () => {
    expect((await one({ rule: 'x', eval: 'startsWith' })).message).toContain('"startsWith"');
  });
});

describe('#comparison', () => {
  const cases: [string, CommandRule, string, boolean][] = [
    [
      'memory used at most 90 % of total (fixture rule)',
      {
        rule: '/Processor\\s+\\S+\\s+(\\d+)/',
        ruleB: '/Processor\\s+\\S+\\s+\\S+\\s+(\\d+)/',
        eval: '#comparison',
        evaluator: '%',
        percentage: 90,
      },
      MEMORY,
      true,
    ],
    [
      'memory used at most 30 % of total fails (35 % used)',
      {
        rule: '/Processor\\s+\\S+\\s+(\\d+)/',
        ruleB: '/Processor\\s+\\S+\\s+\\S+\\s+(\\d+)/',
        eval: '#comparison',
        evaluator: '%',
        percentage: 30,
      },
      MEMORY,
      false,
    ],
    [
      'percentage given as text',
      {
        rule: '/Processor\\s+\\S+\\s+(\\d+)/',
        ruleB: '/Processor\\s+\\S+\\s+\\S+\\s+(\\d+)/',
        eval: '#comparison',
        evaluator: '%',
        percentage: '40',
      },
      MEMORY,
      true,
    ],
    [
      '= with a static bottom operand',
      { rule: '/uptime is (\\d+) days/', ruleB: '9', eval: '#comparison', evaluator: '=' },
      SHOW_VERSION,
      true,
    ],
    [
      '= compares numbers, not text',
      { rule: '/uptime is (\\d+) days/', ruleB: '9.0', eval: '#comparison', evaluator: '=' },
      SHOW_VERSION,
      true,
    ],
    ['!= with a static value', { rule: '/uptime is (\\d+) days/', ruleB: '10', eval: '#comparison', evaluator: '!=' }, SHOW_VERSION, true],
    ['< true', { rule: '/uptime is (\\d+) days/', ruleB: '10', eval: '#comparison', evaluator: '<' }, SHOW_VERSION, true],
    ['< false', { rule: '/uptime is (\\d+) days/', ruleB: '9', eval: '#comparison', evaluator: '<' }, SHOW_VERSION, false],
    ['<= equal', { rule: '/uptime is (\\d+) days/', ruleB: '9', eval: '#comparison', evaluator: '<=' }, SHOW_VERSION, true],
    ['> false', { rule: '/uptime is (\\d+) days/', ruleB: '9', eval: '#comparison', evaluator: '>' }, SHOW_VERSION, false],
    ['>= true', { rule: '/uptime is (\\d+) days/', ruleB: '3', eval: '#comparison', evaluator: '>=' }, SHOW_VERSION, true],
    [
      '= of two captured texts',
      { rule: '/Version (\\S+),/', ruleB: '/Version ([^,]+)/', eval: '#comparison', evaluator: '=' },
      SHOW_VERSION,
      true,
    ],
    ['= of texts differing', { rule: '/Version (\\S+),/', ruleB: '15.9', eval: '#comparison', evaluator: '=' }, SHOW_VERSION, false],
    [
      'regex operand with its own i flag',
      { rule: '/CONFIGURATION REGISTER IS (\\S+)/i', ruleB: '0x2102', eval: '#comparison', evaluator: '=' },
      SHOW_VERSION,
      true,
    ],
    [
      'regex without a group compares the whole match',
      { rule: '/0x\\d+/', ruleB: '0x2102', eval: '#comparison', evaluator: '=' },
      SHOW_VERSION,
      true,
    ],
  ];
  it.each(cases)('%s', async (_what, rule, response, expected) => {
    expect((await one(rule, response)).result).toBe(expected);
  });

  it('fails with a message when an operand finds nothing, an order needs numbers, or the operator is unknown', async () => {
    expect(await one({ rule: '/Uptime: (\\d+)/', ruleB: '1', eval: '#comparison', evaluator: '>' })).toMatchObject({
      result: false,
      message: expect.stringContaining('top operand'),
    });
    expect(await one({ rule: '/Version (\\S+),/', ruleB: 'abc', eval: '#comparison', evaluator: '<' })).toMatchObject({
      result: false,
      message: expect.stringContaining('needs two numbers'),
    });
    expect(await one({ rule: '/uptime is (\\d+)/', ruleB: '1', eval: '#comparison', evaluator: '~' })).toMatchObject({
      result: false,
      message: expect.stringContaining('"~"'),
    });
    expect(await one({ rule: '/uptime is (\\d+)/', ruleB: '1', eval: '#comparison', evaluator: '%' })).toMatchObject({
      result: false,
      message: expect.stringContaining('percentage'),
    });
  });

  it('reads operands and compares as documented', () => {
    expect(parseOperand('/a(b)/im')).toEqual({ kind: 'regex', pattern: 'a(b)', flags: 'im' });
    expect(parseOperand('42')).toEqual({ kind: 'value', value: '42' });
    expect(parseOperand('//')).toEqual({ kind: 'value', value: '//' });
    expect(compareValues('100', '90', '%', 90).result).toBe(true);
    expect(compareValues('100', '91', '%', 90).result).toBe(false);
    expect(compareValues('1,000', '1000', '=').result).toBe(true);
    expect(compareValues('abc', 'abc ', '=').result).toBe(true);
  });
});

describe('variables in rules', () => {
  it('substitutes <!name!> in the rule and ruleB', async () => {
    expect(await one({ rule: 'Version <!version!>', eval: 'contains' }, SHOW_VERSION, { version: '15.9(3)M6' })).toMatchObject({
      result: true,
      rule: 'Version 15.9(3)M6',
    });
    expect(
      (await one({ rule: '/uptime is (\\d+) days/', ruleB: '<!days!>', eval: '#comparison', evaluator: '=' }, SHOW_VERSION, { days: 9 }))
        .result,
    ).toBe(true);
    expect((await one({ rule: '<!iface!> is up', eval: 'RegEx' }, SHOW_VERSION, { iface: 'GigabitEthernet0/1' })).result).toBe(true);
  });

  it('fails a rule whose variable has no value, naming it', async () => {
    const r = await one({ rule: 'Version <!version!>', eval: 'contains' });
    expect(r).toMatchObject({ result: false, message: expect.stringContaining('"version"') });
    const b = await one({ rule: '/uptime is (\\d+)/', ruleB: '<!limit!>', eval: '#comparison', evaluator: '<' }, SHOW_VERSION, {
      limit: null,
    });
    expect(b).toMatchObject({ result: false, message: expect.stringContaining('"limit"') });
  });

  it('fails a rule that uses a list the command did not expand', async () => {
    expect(await one({ rule: '<!ifaces!>', eval: 'contains' }, SHOW_VERSION, { ifaces: ['a', 'b'] })).toMatchObject({
      result: false,
      message: expect.stringContaining('"ifaces"'),
    });
  });
});

describe('severity, ignoreWarnings and passRule', () => {
  const pass: CommandRule = { rule: 'uptime', eval: 'contains' };
  const failError: CommandRule = { rule: 'Fatal', eval: 'contains', severity: 'error' };
  const failWarning: CommandRule = { rule: 'Fatal', eval: 'contains', severity: 'warning' };
  const failInfo: CommandRule = { rule: 'Fatal', eval: 'contains', severity: 'info' };

  const cases: [string, CommandRule[], boolean | undefined, boolean, boolean][] = [
    // [what, rules, passRule, ignoreWarnings, expected]
    ['AND, all pass', [pass, pass], true, false, true],
    ['AND, one error fails', [pass, failError], true, false, false],
    ['AND, passRule absent means AND', [pass, failError], undefined, false, false],
    ['AND, warning fails without ignoreWarnings', [pass, failWarning], true, false, false],
    ['AND, warning counts as pass with ignoreWarnings', [pass, failWarning], true, true, true],
    ['AND, info counts as pass with ignoreWarnings', [pass, failInfo], true, true, true],
    ['AND, error still fails with ignoreWarnings', [pass, failError, failWarning], true, true, false],
    ['OR, one passes', [failError, pass], false, false, true],
    ['OR, none passes', [failError, failWarning], false, false, false],
    ['OR, a warning counts with ignoreWarnings', [failError, failWarning], false, true, true],
    ['OR, errors only fail with ignoreWarnings', [failError, failError], false, true, false],
    ['no rules pass (AND)', [], true, false, true],
    ['no rules pass (OR)', [], false, false, true],
  ];
  it.each(cases)('%s', async (_what, rules, passRule, ignoreWarnings, expected) => {
    const out = await evaluateRules({ response: SHOW_VERSION, rules, variables: {}, passRule, ignoreWarnings }, engine);
    expect(out.result).toBe(expected);
    expect(out.rules.map((r) => r.severity)).toEqual(rules.map((r) => r.severity ?? 'error'));
  });

  it('keeps each rule result as evaluated, the command result applies the severity', async () => {
    const out = await evaluateRules({ response: SHOW_VERSION, rules: [failWarning], variables: {}, ignoreWarnings: true }, engine);
    expect(out).toMatchObject({ result: true, rules: [{ rule: 'Fatal', eval: 'contains', severity: 'warning', result: false }] });
  });

  it('combines commands by the template passRule and counts warnings only when ignored', () => {
    expect(combine([true, false], true)).toBe(false);
    expect(combine([true, false], false)).toBe(true);
    expect(combine([false, false], false)).toBe(false);
    expect(counts({ result: false, severity: 'info' }, true)).toBe(true);
    expect(counts({ result: false, severity: 'error' }, true)).toBe(false);
  });
});
