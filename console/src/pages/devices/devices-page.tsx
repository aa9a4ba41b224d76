import { useMemo } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { nap } from '../../api/nap';
import { ErrorMessage } from '../../components/error-message';
import { DeviceFilters } from './device-filters';
import { DEVICE_PAGE_SIZES, readDeviceParams, toDeviceListBody, writeDeviceParams } from './device-list-params';
import type { DeviceListParams } from './device-list-params';
import { DeviceTable } from './device-table';
import styles from './devices-page.module.css';

const NUMBER = new Intl.NumberFormat();

/** What an empty inventory says: where devices come from (the CLI, the HTTP route, the devices guide). */
function NoDeviceYet() {
  return (
    <div className={styles.empty}>
      <p>
        <strong>The inventory has no device yet.</strong>
      </p>
      <p>
        Add one with <code>nap create device -f device.json</code> or <code>POST /gw/createInventoryDevice</code> (roles admin, engineering,
        apiwrite): a name, its groups and the variables that say how to reach it (<code>gw_host</code>, <code>gw_port</code>,{' '}
        <code>gw_network_os</code>, <code>gw_user</code>, <code>gw_password</code>). The guide <code>docs/devices.md</code> in NAP’s
        repository walks through it.
      </p>
    </div>
  );
}

/**
 * `/console/devices`: the inventory, filtered by name and group and paged by the platform (the
 * filters live in the URL); a name opens the device's page.
 */
export function DevicesPage() {
  const [search, setSearch] = useSearchParams();
  const params = useMemo(() => readDeviceParams(search), [search]);
  const body = useMemo(() => toDeviceListBody(params), [params]);
  const devices = useQuery({
    queryKey: ['devices', body],
    queryFn: ({ signal }) => nap.devices(body, signal),
    placeholderData: keepPreviousData,
  });
  const groups = useQuery({ queryKey: ['device-groups'], queryFn: nap.deviceGroups });
  const update = (changes: Partial<DeviceListParams>) => setSearch(writeDeviceParams({ ...params, ...changes }));

  // the range describes the rows on screen: while another page loads the previous answer stays (keepPreviousData)
  const shown = devices.data;
  const rows = shown?.items ?? [];
  const total = shown?.total ?? 0;
  const shownSkip = shown?.skip ?? 0;
  const shownLimit = shown?.limit || params.limit;
  const first = rows.length === 0 ? 0 : shownSkip + 1;
  const last = shownSkip + rows.length;
  const pages = Math.max(1, Math.ceil(total / shownLimit));
  const shownPage = Math.floor(shownSkip / shownLimit) + 1;
  const filtered = params.name !== '' || params.group !== '';
  const loading = devices.isPlaceholderData;

  return (
    <div className="page">
      <div className="page-header">
        <h1>Devices</h1>
        <span className="muted">{devices.isSuccess && !filtered ? `${NUMBER.format(total)} in the inventory` : ''}</span>
      </div>
      <DeviceFilters params={params} groups={groups.data} onChange={update} />
      <ErrorMessage error={groups.error} title="The groups cannot be listed" />
      <ErrorMessage error={devices.error} title="The devices cannot be listed" />
      <div className={styles.tableWrap} aria-busy={devices.isFetching}>
        <DeviceTable devices={rows} />
        {devices.isSuccess && rows.length === 0 ? (
          filtered ? (
            <p className={styles.empty}>No device matches these filters.</p>
          ) : (
            <NoDeviceYet />
          )
        ) : null}
        {devices.isPending ? <p className={styles.empty}>Loading devices…</p> : null}
      </div>
      <nav aria-label="Pages of devices" className={styles.pager} aria-busy={loading}>
        <div className="row">
          <span aria-live="polite">
            {shown ? `${NUMBER.format(first)}–${NUMBER.format(last)} of ${NUMBER.format(total)} device${total === 1 ? '' : 's'}` : ''}
          </span>
          {loading ? (
            <span className="muted" role="status">
              Loading page {NUMBER.format(params.page)}…
            </span>
          ) : null}
        </div>
        <div className="row">
          <label htmlFor="device-page-size" className={styles.inlineLabel}>
            Rows per page
          </label>
          <select id="device-page-size" value={params.limit} onChange={(e) => update({ limit: Number(e.target.value), page: 1 })}>
            {DEVICE_PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
          <button type="button" className="button" disabled={params.page <= 1} onClick={() => update({ page: params.page - 1 })}>
            Previous page
          </button>
          <span>
            Page {NUMBER.format(shownPage)} of {NUMBER.format(pages)}
          </span>
          <button type="button" className="button" disabled={params.page >= pages} onClick={() => update({ page: params.page + 1 })}>
            Next page
          </button>
        </div>
      </nav>
    </div>
  );
}
