import { ApiError } from '../src/api/http';
import { commandRunsOf, commandsOf, outputsOf, outputsOfError, transcriptOf, variableRows } from '../src/api/device-data';
import { readDeviceParams, toDeviceListBody, writeDeviceParams } from '../src/pages/devices/device-list-params';

/** What the device pages read out of inventory devices and command answers (docs/devices.md, docs/security.md). */
describe('a device as the console reads it', () => {
  it('lists its variables by name, each value as text, the ones the platform masked marked so', () => {
    expect(
      variableRows({ gw_user: 'netops', gw_port: 22, gw_become: true, gw_password: '********', site: null, tags: ['a', 'b'] }),
    ).toEqual([
      { name: 'gw_become', text: 'true', masked: false },
      { name: 'gw_password', text: '********', masked: true },
      { name: 'gw_port', text: '22', masked: false },
      { name: 'gw_user', text: 'netops', masked: false },
      { name: 'site', text: 'null', masked: false },
      { name: 'tags', text: '["a","b"]', masked: false },
    ]);
  });
});

describe('commands and their outputs', () => {
  it('takes one command a line, without blank lines or the spaces around each', () => {
    expect(commandsOf('show version\r\n\n   show ip interface brief  \n\t\n')).toEqual(['show version', 'show ip interface brief']);
    expect(commandsOf(' \n ')).toEqual([]);
  });

  it('reads the outputs of an answer and leaves out what is not one', () => {
    expect(
      outputsOf([
        { command: 'show clock', output: '*12:00:00 UTC', errorLines: [], failed: false },
        { command: 'show bogus', output: '% Invalid input', errorLines: ['% Invalid input', 3], failed: true },
        { output: 'no command' },
        'text',
      ]),
    ).toEqual([
      { command: 'show clock', output: '*12:00:00 UTC', errorLines: [], failed: false },
      { command: 'show bogus', output: '% Invalid input', errorLines: ['% Invalid input'], failed: true },
    ]);
    expect(outputsOf(undefined)).toEqual([]);
    expect(outputsOf({ command: 'show clock' })).toEqual([]);
  });

  it('reads the outputs a DEVICE_COMMAND_FAILED refusal holds, and none from any other error', () => {
    const refusal = new ApiError(502, 'DEVICE_COMMAND_FAILED', 'device "edge-1" reported an error', {
      details: {
        command: 'show bogus',
        errorLines: ['% Invalid input'],
        results: [{ command: 'show clock', output: 'now', failed: false }],
      },
    });
    expect(outputsOfError(refusal)).toEqual([{ command: 'show clock', output: 'now', errorLines: [], failed: false }]);
    expect(outputsOfError(new ApiError(502, 'DEVICE_UNREACHABLE', 'refused', { details: { port: 22 } }))).toEqual([]);
    expect(outputsOfError(new Error('network'))).toEqual([]);
  });

  it('sets each command asked for beside its output, the ones after a refusal not sent, and copies them headed by their commands', () => {
    const runs = commandRunsOf(
      ['show clock', 'show bogus', 'show version'],
      [
        { command: 'show clock', output: 'now', errorLines: [], failed: false },
        { command: 'show bogus', output: '% Invalid input', errorLines: ['% Invalid input'], failed: true },
      ],
    );
    expect(runs).toEqual([
      { command: 'show clock', output: 'now', failed: false },
      { command: 'show bogus', output: '% Invalid input', failed: true },
      { command: 'show version', output: undefined, failed: false },
    ]);
    expect(transcriptOf(runs)).toBe('### show clock\nnow\n\n### show bogus\n% Invalid input');
  });
});

describe('the devices list in the URL', () => {
  it('writes only what differs from the default, and reads it back', () => {
    const params = { name: 'edge', group: 'lab', page: 3, limit: 50 };
    expect(writeDeviceParams(params).toString()).toBe('name=edge&group=lab&page=3&limit=50');
    expect(readDeviceParams(writeDeviceParams(params))).toEqual(params);
    expect(writeDeviceParams({ name: '', group: '', page: 1, limit: 25 }).toString()).toBe('');
  });

  it('reads a page or page size it does not offer as the first page of 25', () => {
    expect(readDeviceParams(new URLSearchParams('page=0&limit=7'))).toEqual({ name: '', group: '', page: 1, limit: 25 });
    expect(readDeviceParams(new URLSearchParams('page=2.5&limit=100'))).toEqual({ name: '', group: '', page: 1, limit: 100 });
  });

  it('asks the platform for one page sorted by name, filtered only by what is set', () => {
    expect(toDeviceListBody({ name: '', group: '', page: 1, limit: 25 })).toEqual({ sort: 'name', skip: 0, limit: 25 });
    expect(toDeviceListBody({ name: 'edge', group: 'lab', page: 3, limit: 50 })).toEqual({
      filter: { name: 'edge', group: 'lab' },
      sort: 'name',
      skip: 100,
      limit: 50,
    });
  });
});
