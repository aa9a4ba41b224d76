export { createGatewayDevicesService } from './service';
export type { GatewayDevicesServiceOptions } from './service';
export { loadGatewayDevicesConfig } from './config';
export type { GatewayDevicesConfig } from './config';
