import type { DeviceListBody } from '../../api/nap';
import { PAGE_SIZES } from '../jobs/job-list-params';

/** The devices page's filters and page: kept in the URL, so that a reload or a shared link shows the same list. */
export interface DeviceListParams {
  /** Part of the device's name (the platform compares without case). */
  name: string;
  /** A group the device is in. */
  group: string;
  page: number;
  limit: number;
}

/** The rows a page may hold: the jobs list's choices. */
export const DEVICE_PAGE_SIZES = PAGE_SIZES;
const DEFAULT_LIMIT = 25;

export function readDeviceParams(search: URLSearchParams): DeviceListParams {
  const limit = Number(search.get('limit'));
  const page = Number(search.get('page'));
  return {
    name: search.get('name') ?? '',
    group: search.get('group') ?? '',
    page: Number.isInteger(page) && page > 0 ? page : 1,
    limit: (DEVICE_PAGE_SIZES as readonly number[]).includes(limit) ? limit : DEFAULT_LIMIT,
  };
}

/** The URL of a list: only what differs from the default is written. */
export function writeDeviceParams(params: DeviceListParams): URLSearchParams {
  const search = new URLSearchParams();
  if (params.name) search.set('name', params.name);
  if (params.group) search.set('group', params.group);
  if (params.page !== 1) search.set('page', String(params.page));
  if (params.limit !== DEFAULT_LIMIT) search.set('limit', String(params.limit));
  return search;
}

/** The body of `POST /gw/getInventoryDevices` for a list: the platform filters, sorts by name and pages. */
export function toDeviceListBody(params: DeviceListParams): DeviceListBody {
  const filter: Record<string, string> = {};
  if (params.name) filter.name = params.name;
  if (params.group) filter.group = params.group;
  return {
    ...(Object.keys(filter).length > 0 ? { filter } : {}),
    sort: 'name',
    skip: (params.page - 1) * params.limit,
    limit: params.limit,
  };
}
