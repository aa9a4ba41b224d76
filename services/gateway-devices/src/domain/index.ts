// The device I/O library of the gateway: no bus, no store. Handlers import from here.
export * from './device-types';
export * from './known-hosts';
export * from './ssh-connection';
export * from './ssh-session';
export * from './session-limiter';
export * from './netconf-framing';
export * from './netconf-xml';
export * from './netconf-client';
