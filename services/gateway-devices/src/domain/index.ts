// The gateway's pure logic: device types and their command tables, host keys, the session limiter,
// NETCONF XML, connection settings. No I/O; the protocol clients are in ../clients.
export * from './device-types';
export * from './known-hosts';
export * from './session-limiter';
export * from './netconf-xml';
export * from './connection-settings';
