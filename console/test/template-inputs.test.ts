import { templateVariables, variableValue } from '../src/api/template-inputs';

describe("a command template's variables as the device page asks for them", () => {
  it('are the <!names!> of its commands and rules, each once, in order of first use', () => {
    const template = {
      commands: [
        {
          command: 'show running-config interface <!intf!>',
          rules: [{ rule: 'description <!desc!>' }, { rule: 'vlan <!vlan!> <!intf!>' }],
        },
        { command: 'show version', rules: [] },
      ],
    };
    expect(templateVariables(template as never)).toEqual(['intf', 'desc', 'vlan']);
    expect(templateVariables({ commands: [] } as never)).toEqual([]);
  });

  it('are given as typed: a JSON list, number or boolean as that value, other text as it is, blank as none', () => {
    expect(variableValue('["Gi0/1", "Gi0/2"]')).toEqual(['Gi0/1', 'Gi0/2']);
    expect(variableValue('10')).toBe(10);
    expect(variableValue('true')).toBe(true);
    expect(variableValue('uplink to core-2')).toBe('uplink to core-2');
    expect(variableValue('[not json')).toBe('[not json');
    expect(variableValue('  ')).toBeUndefined();
  });
});
