import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import { isRecord, refusedLiteralAddress } from '@nap/util';
import { sendDeviceRequest } from '../clients/http-request';
import type { GatewayDevicesContext } from '../context';
import { headerProblems } from '../domain/http-headers';

/**
 * `POST /gw/http_requests/request/execute`: HTTP/1.1 to an inventory device's `gw_http_base_url`, with
 * the device's `gw_http_headers` under the request's own; the answer, any status. Headers that cannot
 * be sent are refused first: 400 `VALIDATION_FAILED` naming `body.headers.<name>`.
 */
export function sendRequest(svc: GatewayDevicesContext): Handler<'gateway-devices.sendRequest'> {
  return async (input, ctx) => {
    const { host, ...request } = input.body;
    if (request.headers !== undefined) {
      const problems = headerProblems(request.headers, 'body.headers');
      if (problems.length > 0) throw new AppError('VALIDATION_FAILED', problems.map((p) => p.message).join('; '), { details: problems });
    }
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
    // a device writer must not turn the platform into a reader of the cloud host's own credentials:
    // an address written out is refused here, a name as its connection is made (guardedLookup)
    const refused = URL.canParse(baseUrl) ? refusedLiteralAddress(new URL(baseUrl)) : undefined;
    if (refused !== undefined)
      throw new AppError(
        'DEVICE_HTTP_NOT_CONFIGURED',
        `gw_http_base_url of inventory device "${device.name}" leads to ${refused}: link-local and unspecified addresses (cloud metadata) are never sent requests; give the device's own address`,
      );
    const deviceHeaders = device.variables.gw_http_headers;
    if (deviceHeaders !== undefined && headerProblems(deviceHeaders, 'gw_http_headers').length > 0) {
      // checked when written; a device stored before that may hold some that cannot be sent (never echoed: they may be secrets)
      throw new AppError(
        'DEVICE_HTTP_NOT_CONFIGURED',
        `gw_http_headers of inventory device "${device.name}" holds a header that cannot be sent; set it again as an object of header names and values`,
      );
    }
    const { gw_http_username: username, gw_http_password: password } = device.variables;
    const credentials = typeof username === 'string' ? { username, password: typeof password === 'string' ? password : '' } : undefined;
    return sendDeviceRequest(
      {
        deviceName: device.name,
        baseUrl,
        credentials,
        deadline: ctx.deadline,
        ...(isRecord(deviceHeaders) ? { headers: deviceHeaders as Record<string, string> } : {}),
      },
      request,
    );
  };
}
