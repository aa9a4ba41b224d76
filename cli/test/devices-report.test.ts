import pc from 'picocolors';
import { checkReport } from '../src/commands/devices';

const plain = pc.createColors(false);

const command = (device: string, evaluated: string, result: boolean, extra: Record<string, unknown> = {}) => ({
  raw: evaluated,
  evaluated,
  device,
  response: '',
  result,
  all_pass_flag: true,
  parameters: {},
  rules: [],
  ...extra,
});

describe("nap devices check's report", () => {
  it("passes a device on one passing command when the template's passRule is false (one is enough)", () => {
    const answer = {
      name: 'any-uplink',
      all_pass_flag: false,
      result: true,
      commands_results: [command('edge-1', 'show interface Gi0/1', false), command('edge-1', 'show interface Gi0/2', true)],
    };
    expect(checkReport('any-uplink', ['edge-1'], answer, plain).split('\n').slice(0, 4)).toEqual([
      'edge-1  passed',
      '  ✘ show interface Gi0/1',
      '  ✔ show interface Gi0/2',
      'any-uplink passed on edge-1',
    ]);
  });

  it('says why a device failed when it could not be reached, and fails a device the answer holds nothing of', () => {
    const answer = {
      name: 'version',
      all_pass_flag: true,
      result: false,
      commands_results: [command('edge-1', 'show version', false, { message: 'DEVICE_UNREACHABLE: connection refused' })],
    };
    expect(checkReport('version', ['edge-1', 'edge-9'], answer, plain)).toBe(
      [
        'edge-1  FAILED',
        '  ✘ show version',
        '      DEVICE_UNREACHABLE: connection refused',
        'edge-9  FAILED',
        'version failed on 2 of 2 devices',
        '',
      ].join('\n'),
    );
    // one device is named rather than counted
    expect(checkReport('version', ['edge-1'], answer, plain).split('\n').at(-2)).toBe('version failed on edge-1');
  });
});
