import type { HandlerContext, HandlerMap } from '@nap/bus';
import { sendDeviceRequest } from '../domain/http-request';
import type { DeviceHttpRequest } from '../domain/http-request';
import type { GatewayContext } from './context';
import { AppError } from '@nap/contracts';

/** `POST /gw/http_requests/request/execute`: HTTP/1.1 to an inventory device's gw_http_base_url. */
export function httpRequestHandlers(g: GatewayContext): HandlerMap {
  return {
    sendRequest: async (input: { body: DeviceHttpRequest & { host: string } }, ctx: HandlerContext) => {
      const device = await g.inventory.resolve(input.body.host);
      if (device === undefined) throw new AppError('DEVICE_NOT_FOUND', `No inventory device named "${input.body.host}"; only inventory devices can be sent requests`, { details: { name: input.body.host } });
      const baseUrl = device.variables.gw_http_base_url;
      if (typeof baseUrl !== 'string' || baseUrl === '') {
        throw new AppError('DEVICE_HTTP_NOT_CONFIGURED', `Inventory device "${device.name}" has no gw_http_base_url; set it to send HTTP requests`);
      }
      const credentials =
        typeof device.variables.gw_http_username === 'string'
          ? { username: device.variables.gw_http_username, password: typeof device.variables.gw_http_password === 'string' ? device.variables.gw_http_password : '' }
          : undefined;
      return sendDeviceRequest({ deviceName: device.name, baseUrl, credentials, deadline: ctx.deadline }, input.body);
    },
  } as HandlerMap;
}
