import { AppError } from '@nap/contracts';

/** Query parameters of a request to a device (`params` of `sendRequest`). */
export type QueryParams = Record<string, string | number | boolean>;

/**
 * The URL of `endpoint` below the device's base URL. An absolute endpoint must share the base URL's
 * origin: the device is the only possible target. Throws `DEVICE_HTTP_NOT_CONFIGURED` otherwise.
 */
export function deviceUrl(baseUrl: string, endpoint: string, params: QueryParams | undefined, deviceName: string): URL {
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch (err) {
    throw new AppError('DEVICE_HTTP_NOT_CONFIGURED', `gw_http_base_url of device "${deviceName}" is not a URL`, { cause: err });
  }
  let url: URL;
  if (/^[a-z][a-z0-9+.-]*:/i.test(endpoint) || endpoint.startsWith('//')) {
    url = new URL(endpoint, base);
  } else {
    const prefix = base.pathname.replace(/\/+$/, '');
    const [pathPart, queryPart] = endpoint.split('?', 2) as [string, string | undefined];
    url = new URL(base.origin);
    url.pathname = `${prefix}/${pathPart.replace(/^\/+/, '')}`;
    if (queryPart !== undefined) url.search = queryPart;
  }
  if (url.origin !== base.origin) {
    throw new AppError(
      'DEVICE_HTTP_NOT_CONFIGURED',
      `The endpoint ${url.origin} is not device "${deviceName}" (${base.origin}); only the device's own address can be reached`,
    );
  }
  for (const [key, value] of Object.entries(params ?? {})) url.searchParams.append(key, String(value));
  return url;
}
