import { deviceSshEndpoint, hostKeyCheckingMode, knownHostsRoute } from './device-endpoints';

/** The device gateway's rules of endpoints and host key checking, which the console reads too (docs/security.md, "Device host keys"). */
describe('a device endpoint', () => {
  it('is reached on gw_host:gw_port, its name and port 22 when they are absent, an IPv6 address in brackets', () => {
    expect(deviceSshEndpoint('edge-1', { gw_host: '192.0.2.10', gw_port: 2222 })).toBe('192.0.2.10:2222');
    expect(deviceSshEndpoint('edge-1', { gw_host: '192.0.2.10' })).toBe('192.0.2.10:22');
    expect(deviceSshEndpoint('edge-1.lab', {})).toBe('edge-1.lab:22');
    expect(deviceSshEndpoint('edge-1', { gw_host: '' })).toBe('edge-1:22');
    expect(deviceSshEndpoint('core-1', { gw_host: '2001:db8::1', gw_port: 830 })).toBe('[2001:db8::1]:830');
    // the gateway reads a port that is not a whole number as no port (it refuses one when the device is written)
    expect(deviceSshEndpoint('edge-1', { gw_host: 'h', gw_port: 'x' })).toBe('h:22');
  });

  it('names the route of a trusted key: the colon before the port kept, an IPv6 address encoded', () => {
    expect(knownHostsRoute('192.0.2.10:22')).toBe('/gw/knownHosts/192.0.2.10:22');
    expect(knownHostsRoute('[2001:db8::1]:22')).toBe('/gw/knownHosts/%5B2001%3Adb8%3A%3A1%5D:22');
  });

  it('reads host_key_checking, and knows when it names no mode', () => {
    for (const value of [undefined, null, true, 'tofu', 'TRUE', ' yes ', 1, 'accept-new']) expect(hostKeyCheckingMode(value)).toBe('tofu');
    for (const value of ['strict', 'Strict']) expect(hostKeyCheckingMode(value)).toBe('strict');
    for (const value of [false, 'off', 'false', 'no', 0]) expect(hostKeyCheckingMode(value)).toBe('off');
    expect(hostKeyCheckingMode('paranoid')).toBeUndefined();
  });
});
