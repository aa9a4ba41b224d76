// The protocol clients of the gateway: SSH connections and netmiko-like sessions, NETCONF over SSH
// (framing and client), HTTP to devices, program runs. No bus, no store.
export * from './ssh-connection';
export * from './ssh-session';
export * from './netmiko-options';
export * from './netconf-framing';
export * from './netconf-client';
export * from './http-request';
export * from './process-run';
