export { createGatewayDevicesService } from './service';
