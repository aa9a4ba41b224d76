export { createGatewayDevicesService } from './service';
export type { GatewayDevicesServiceOptions } from './service';
export { GATEWAY_FILE_DIRS, GATEWAY_INVENTORY_FILE, gatewayFileLocations, loadGatewayDevicesConfig, pathSetting } from './config';
export type { GatewayDevicesConfig } from './config';
// The session library on its own (no bus, store or limiter), for tools and the device benchmark
// (test/bench/devices.mjs), which measures the service against it.
export { withSshSession } from './clients/ssh-session';
export type { SshSession, SshSessionOptions } from './clients/ssh-session';
export { createMemoryKnownHostsStore } from './store/known-hosts-repository';
export type { KnownHostsStore } from './store/known-hosts-repository';
