import { isAppError } from '@nap/contracts';
import { isHostSideVariable } from '../src/clients/runners/ansible';
import { mapDeviceVars, normalizeVariables } from '../src/domain/device-variables';

/** Variable names that Object.prototype has are names like any other; `__proto__` is refused naming it. */

function own(json: string): Record<string, unknown> {
  return JSON.parse(json) as Record<string, unknown>;
}

it('a variable named toString, constructor or hasOwnProperty is no integer variable: any value is kept as given', () => {
  const out = normalizeVariables(own('{"toString": "t", "constructor": "c", "hasOwnProperty": "h", "valueOf": 1.5}'));
  expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  expect(Object.entries(out)).toEqual([
    ['toString', 't'],
    ['constructor', 'c'],
    ['hasOwnProperty', 'h'],
    ['valueOf', 1.5],
  ]);
});

it('a variable named __proto__ is refused naming it, not dropped', () => {
  let caught: unknown;
  try {
    normalizeVariables(own('{"__proto__": {"gw_port": 1}, "a": 1}'));
  } catch (err) {
    caught = err;
  }
  expect(isAppError(caught) && { code: caught.code, details: caught.details }).toEqual({
    code: 'VALIDATION_FAILED',
    details: [{ member: 'body.variables.__proto__', message: 'variable name "__proto__" is reserved: choose another name' }],
  });
});

it('deviceVars named after Object.prototype members are outside the mapping', () => {
  for (const key of ['constructor', 'toString', '__proto__']) {
    let caught: unknown;
    try {
      mapDeviceVars(own(`{"${key}": "x", "ipaddress": "10.0.0.1"}`));
    } catch (err) {
      caught = err;
    }
    expect({ key, code: isAppError(caught) ? caught.code : caught, message: isAppError(caught) ? caught.message : '' }).toEqual({
      key,
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining(`members the mapping does not know: ${key}`),
    });
  }
});

it('leaves out of Ansible runs the variables Ansible acts on at the platform host, and keeps the ones for the device', () => {
  const hostSide = [
    'ansible_python_interpreter',
    'ansible_ssh_extra_args',
    'ansible_ssh_common_args',
    'ansible_paramiko_proxy_command',
    'ansible_become_exe',
    'ansible_ssh_executable',
    'ansible_ssh_pkcs11_provider',
    'ansible_pkcs11_provider',
    'ansible_control_path',
    'ansible_control_path_dir',
    'ANSIBLE_SSH_PKCS11_PROVIDER',
  ];
  const deviceSide = [
    'ansible_host',
    'ansible_port',
    'ansible_user',
    'ansible_network_os',
    'ansible_become',
    'ansible_become_user',
    'provider',
  ];
  expect(hostSide.filter((name) => !isHostSideVariable(name))).toEqual([]);
  expect(deviceSide.filter(isHostSideVariable)).toEqual([]);
});
