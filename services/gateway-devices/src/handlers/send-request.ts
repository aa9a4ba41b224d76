import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import { sendDeviceRequest } from '../clients/http-request';
import type { GatewayDevicesContext } from '../context';

/** `POST /gw/http_requests/request/execute`: HTTP/1.1 to an inventory device's `gw_http_base_url`; the answer, any status. */
export function sendRequest(svc: GatewayDevicesContext): Handler<'gateway-devices.sendRequest'> {
  return async (input, ctx) => {
    const { host, ...request } = input.body;
    const device = await svc.inventory.resolve(host);
    if (device === undefined)
      throw new AppError('DEVICE_NOT_FOUND', `No inventory device named "${host}"; only inventory devices can be sent requests`, {
        details: { name: host },
      });
    const baseUrl = device.variables.gw_http_base_url;
    if (typeof baseUrl !== 'string' || baseUrl === '') {
      throw new AppError(
        'DEVICE_HTTP_NOT_CONFIGURED',
        `Inventory device "${device.name}" has no gw_http_base_url; set it to send HTTP requests`,
      );
    }
    const { gw_http_username: username, gw_http_password: password } = device.variables;
    const credentials = typeof username === 'string' ? { username, password: typeof password === 'string' ? password : '' } : undefined;
    return sendDeviceRequest({ deviceName: device.name, baseUrl, credentials, deadline: ctx.deadline }, request);
  };
}
