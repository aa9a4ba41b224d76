import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAppError, knownHostsKey, knownHostsRoute } from '@nap/contracts';
import { buildDeviceQuery, hostKeyCheckingOf, mapDeviceVars, normalizeVariables } from '../src/domain/device-variables';
import { configLines, findMacAddresses, parseCpu, parseMemory } from '../src/domain/device-reports';
import { deviceUrl } from '../src/domain/device-url';
import { resolveInside } from '../src/clients/runners/files';
import { parseInventory } from '../src/domain/inventory-file';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return isAppError(err) ? err.code : 'not-an-app-error';
  }
  return undefined;
}

describe('device variables', () => {
  it('normalises ports and refuses bad names and values', () => {
    expect(normalizeVariables({ gw_port: '22', gw_session_limit: 3, x: null })).toEqual({ gw_port: 22, gw_session_limit: 3, x: null });
    expect(codeOf(() => normalizeVariables({ 'a.b': 1 }))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => normalizeVariables({ gw_port: 0 }))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => normalizeVariables({ gw_password: 5 }))).toBe('VALIDATION_FAILED');
  });

  it('maps deviceVars as the spec lists and nothing else', () => {
    expect(mapDeviceVars({ 'device-type': 'network_cli', become_pass: 'x' })).toEqual({
      gw_connection: 'network_cli',
      gw_become_pass: 'x',
    });
    expect(codeOf(() => mapDeviceVars({ host: 'x' }))).toBe('VALIDATION_FAILED');
  });

  it('reads host_key_checking', () => {
    expect([undefined, true, 'tofu', false, 'off', 'strict'].map((v) => hostKeyCheckingOf(v))).toEqual([
      'tofu',
      'tofu',
      'tofu',
      'off',
      'off',
      'strict',
    ]);
    expect(codeOf(() => hostKeyCheckingOf('maybe'))).toBe('VALIDATION_FAILED');
  });

  it('builds filters from allowed members with values as data', () => {
    expect(buildDeviceQuery({ name: 'a.b', group: 'g', gw_os: 'ios', 'variables.gw_port': 22 }, '-updated')).toEqual({
      filter: {
        name: { $regex: 'a\\.b', $options: 'i' },
        groups: { $eq: 'g' },
        'variables.gw_os': { $eq: 'ios' },
        'variables.gw_port': { $eq: 22 },
      },
      sort: { updated: -1, name: 1 },
    });
    expect(codeOf(() => buildDeviceQuery({ $or: 'x' }, undefined))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => buildDeviceQuery({ 'variables.$where': 'x' }, undefined))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => buildDeviceQuery({ gw_become_pass: 'x' }, undefined))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => buildDeviceQuery({ name: { $gt: '' } as unknown as string }, undefined))).toBe('VALIDATION_FAILED');
  });
});

describe('device reports', () => {
  it('reads CPU and memory of Linux', () => {
    expect(parseCpu('0.50 0.40 0.30 1/200 999')).toEqual({ loadAverage: [0.5, 0.4, 0.3] });
    expect(parseMemory('MemTotal:       2000 kB\nMemFree:         500 kB\nMemAvailable:   1000 kB')).toEqual({
      totalBytes: 2048000,
      freeBytes: 1024000,
      usedBytes: 1024000,
      utilizationPercent: 50,
    });
  });

  it('finds MAC addresses in both notations, once each', () => {
    expect(findMacAddresses('address is 5254.0012.3456 (bia 5254.0012.3456)\nlink/ether 52:54:00:ab:cd:ef\n00:00:00:00:00:00')).toEqual([
      '52:54:00:12:34:56',
      '52:54:00:ab:cd:ef',
    ]);
  });

  it('keeps the configuration lines of a saved configuration', () => {
    expect(
      configLines(
        'Building configuration...\n\nCurrent configuration : 10 bytes\n!\nversion 15.9\nhostname r1\ninterface Lo0\n ip address 10.0.0.1 255.255.255.255\n!\nend\n',
      ),
    ).toEqual(['hostname r1', 'interface Lo0', ' ip address 10.0.0.1 255.255.255.255']);
  });
});

describe('inventory files, HTTP targets and runner paths', () => {
  it('reads both JSON inventory layouts', () => {
    const dynamic = parseInventory(
      JSON.stringify({ core: { hosts: ['r1'], vars: { gw_user: 'ops' } }, _meta: { hostvars: { r1: { gw_host: '10.0.0.1' } } } }),
      'inv.json',
    );
    expect(dynamic).toEqual([{ name: 'r1', groups: ['core'], variables: { gw_user: 'ops', gw_host: '10.0.0.1' } }]);
    expect(codeOf(() => parseInventory('[1]', 'inv.json'))).toBe('DEVICE_INVENTORY_INVALID');
  });

  it('keeps HTTP requests on the device origin', () => {
    expect(deviceUrl('https://10.0.0.1:8443/api/', '/v1/x?y=1', { z: 2 }, 'r1').toString()).toBe('https://10.0.0.1:8443/api/v1/x?y=1&z=2');
    expect(codeOf(() => deviceUrl('https://10.0.0.1/api', 'https://10.0.0.2/api', undefined, 'r1'))).toBe('DEVICE_HTTP_NOT_CONFIGURED');
    expect(codeOf(() => deviceUrl('https://10.0.0.1/api', '//evil.example/x', undefined, 'r1'))).toBe('DEVICE_HTTP_NOT_CONFIGURED');
    // below the base path only: dot segments (encoded too) and other paths of the origin are refused
    for (const endpoint of ['../x', '%2e%2e/x', 'a/%2E/b', '..%2Fx', '..\\x', 'https://10.0.0.1/other', 'https://10.0.0.1/apix']) {
      expect({ endpoint, code: codeOf(() => deviceUrl('https://10.0.0.1/api/', endpoint, undefined, 'r1')) }).toEqual({
        endpoint,
        code: 'VALIDATION_FAILED',
      });
    }
    expect(deviceUrl('https://10.0.0.1/api', 'https://10.0.0.1/api/v1', undefined, 'r1').pathname).toBe('/api/v1');
    expect(deviceUrl('https://10.0.0.1/', '/x/y..z/.hidden', undefined, 'r1').pathname).toBe('/x/y..z/.hidden');
  });

  it('resolves runner names inside their directory only', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'nap-gw-paths-'));
    mkdirSync(path.join(root, 'sub'));
    writeFileSync(path.join(root, 'sub', 'ok.sh'), 'true');
    symlinkSync(os.tmpdir(), path.join(root, 'out'));
    expect(resolveInside(root, 'sub/ok.sh', 'script')).toBe(path.join(root, 'sub', 'ok.sh'));
    expect(codeOf(() => resolveInside(root, '../x', 'script'))).toBe('RUNNER_PATH_REFUSED');
    expect(codeOf(() => resolveInside(root, 'sub/../../x', 'script'))).toBe('RUNNER_PATH_REFUSED');
    expect(codeOf(() => resolveInside(root, 'out', 'script'))).toBe('RUNNER_PATH_REFUSED');
    expect(codeOf(() => resolveInside(root, 'missing.sh', 'script'))).toBe('RUNNER_NOT_FOUND');
  });
});

describe('the route of a trusted host key', () => {
  it("keeps the port's colon and encodes what a path cannot hold (an IPv6 address)", () => {
    expect(knownHostsRoute(knownHostsKey('10.0.0.1', 22))).toBe('/gw/knownHosts/10.0.0.1:22');
    expect(knownHostsRoute(knownHostsKey('edge-1.example.net', 2222))).toBe('/gw/knownHosts/edge-1.example.net:2222');
    expect(knownHostsRoute(knownHostsKey('2001:db8::1', 830))).toBe('/gw/knownHosts/%5B2001%3Adb8%3A%3A1%5D:830');
  });
});
