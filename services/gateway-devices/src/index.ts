export { createGatewayDevicesService } from './service';
export type { GatewayDevicesServiceOptions } from './service';
export { loadGatewayConfig } from './config';
export type { GatewayConfig } from './config';
