import { AppError } from '@nap/contracts';

/** Query parameters of a request to a device (`params` of `sendRequest`). */
export type QueryParams = Record<string, string | number | boolean>;

/**
 * True when a path has a `.` or `..` segment, as is or percent-encoded (`%2e%2e`), between `/`, `\`
 * or their encodings (`%2f`, `%5c`): what a URL parser or the device could resolve to another place.
 */
function hasDotSegment(path: string): boolean {
  return path
    .replace(/%2e/gi, '.')
    .split(/\/|\\|%2f|%5c/i)
    .some((segment) => segment === '.' || segment === '..');
}

/** The base URL's path without its trailing slashes (`''` for the root). */
function basePath(base: URL): string {
  return base.pathname.replace(/\/+$/, '');
}

/** True when `url` is the device's base URL or below it: same origin, a path under the base path, no dot segment. */
export function isBelowBase(baseUrl: string, url: URL): boolean {
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    return false;
  }
  if (url.origin !== base.origin || hasDotSegment(url.pathname)) return false;
  const prefix = basePath(base);
  return prefix === '' || url.pathname === prefix || url.pathname.startsWith(`${prefix}/`);
}

function leavesBase(endpoint: string, deviceName: string, baseUrl: string): AppError {
  return new AppError(
    'VALIDATION_FAILED',
    `body.endpoint must be a path below the gw_http_base_url of device "${deviceName}" (${baseUrl}), without . or .. segments`,
    { details: [{ member: 'body.endpoint', message: 'leaves the device base URL' }] },
  );
}

/**
 * The URL of `endpoint` below the device's base URL. An absolute endpoint must share the base URL's
 * origin (`DEVICE_HTTP_NOT_CONFIGURED` otherwise: the device is the only possible target), and any
 * endpoint must stay below the base path: one with `.` or `..` segments (percent-encoded too) or
 * an absolute one outside the base path is refused, `VALIDATION_FAILED` naming `body.endpoint`.
 */
export function deviceUrl(baseUrl: string, endpoint: string, params: QueryParams | undefined, deviceName: string): URL {
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch (err) {
    throw new AppError('DEVICE_HTTP_NOT_CONFIGURED', `gw_http_base_url of device "${deviceName}" is not a URL`, { cause: err });
  }
  const [pathPart, queryPart] = endpoint.split('?', 2) as [string, string | undefined];
  if (hasDotSegment(pathPart)) throw leavesBase(endpoint, deviceName, baseUrl);
  let url: URL;
  if (/^[a-z][a-z0-9+.-]*:/i.test(endpoint) || endpoint.startsWith('//')) {
    url = new URL(endpoint, base);
  } else {
    url = new URL(base.origin);
    url.pathname = `${basePath(base)}/${pathPart.replace(/^\/+/, '')}`;
    if (queryPart !== undefined) url.search = queryPart;
  }
  if (url.origin !== base.origin) {
    throw new AppError(
      'DEVICE_HTTP_NOT_CONFIGURED',
      `The endpoint ${url.origin} is not device "${deviceName}" (${base.origin}); only the device's own address can be reached`,
    );
  }
  if (!isBelowBase(baseUrl, url)) throw leavesBase(endpoint, deviceName, baseUrl);
  for (const [key, value] of Object.entries(params ?? {})) url.searchParams.append(key, String(value));
  return url;
}
