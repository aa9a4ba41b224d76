import { DEVICE_TYPES, findErrorLines, getDeviceTypeProfile, matchPrompt } from '../src/domain/device-types';

describe('device type profiles', () => {
  it('has a profile for every netmiko type the gateway names, and a generic fallback', () => {
    for (const type of DEVICE_TYPES) expect(getDeviceTypeProfile(type).deviceType).toBe(type);
    expect(getDeviceTypeProfile('hp_procurve').deviceType).toBe('generic');
  });

  it.each([
    ['cisco_ios', 'router1>', { base: 'router1', mode: '', term: '>' }],
    ['cisco_ios', 'router1#', { base: 'router1', mode: '', term: '#' }],
    ['cisco_ios', 'router1(config-if)#', { base: 'router1', mode: 'config-if', term: '#' }],
    ['arista_eos', 'leaf-1(s1)(config-if-Et3)#', { base: 'leaf-1', mode: 's1)(config-if-Et3', term: '#' }],
    ['juniper_junos', 'netops@core1> ', { base: 'netops@core1', term: '>' }],
    ['juniper_junos', 'netops@core1# ', { base: 'netops@core1', term: '#' }],
    ['linux', 'naplab@host:~$ ', { base: 'naplab@host', term: '$' }],
  ])('recognises the %s prompt %j', (type, line, expected) => {
    expect(matchPrompt(getDeviceTypeProfile(type), line)).toMatchObject(expected);
  });

  it.each([
    ['cisco_ios', '##########'],
    ['cisco_ios', '  Description: uplink to core#'],
    ['cisco_ios', '<config>'],
    ['juniper_junos', '[edit]'],
  ])('does not take %s output %j for a prompt', (type, line) => {
    expect(matchPrompt(getDeviceTypeProfile(type), line)).toBeUndefined();
  });

  it('knows config mode per family', () => {
    const ios = getDeviceTypeProfile('cisco_ios');
    const junos = getDeviceTypeProfile('juniper_junos');
    expect(ios.isConfigPrompt(matchPrompt(ios, 'r1(config-router)#')!)).toBe(true);
    expect(ios.isConfigPrompt(matchPrompt(ios, 'r1#')!)).toBe(false);
    expect(junos.isConfigPrompt(matchPrompt(junos, 'u@r1# ')!)).toBe(true);
  });

  it('finds the device error lines', () => {
    const output = '   ^\n% Invalid input detected at \'^\' marker.\n\nok line\n% Incomplete command.\n% Ambiguous command:  "sh"';
    expect(findErrorLines(getDeviceTypeProfile('cisco_ios'), output)).toEqual([
      "% Invalid input detected at '^' marker.",
      '% Incomplete command.',
      '% Ambiguous command:  "sh"',
    ]);
    expect(
      findErrorLines(
        getDeviceTypeProfile('juniper_junos'),
        '      ^\nsyntax error, expecting <command>.\nerror: configuration check-out failed',
      ),
    ).toEqual(['syntax error, expecting <command>.', 'error: configuration check-out failed']);
  });
});
