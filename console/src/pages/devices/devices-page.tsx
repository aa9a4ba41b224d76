import { useMemo } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { nap } from '../../api/nap';
import { ErrorMessage } from '../../components/error-message';
import { Pager } from '../../components/pager';
import { usePageClamp } from '../../hooks/use-page-clamp';
import frame from '../../components/list-frame.module.css';
import { DeviceFilters } from './device-filters';
import { DEVICE_PAGE_SIZES, readDeviceParams, toDeviceListBody, writeDeviceParams } from './device-list-params';
import type { DeviceListParams } from './device-list-params';
import { DeviceTable } from './device-table';
import styles from './devices-page.module.css';
import { useUrlSearch } from '../../hooks/use-url-search';

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
  const [search, editSearch] = useUrlSearch();
  const params = useMemo(() => readDeviceParams(search), [search]);
  const body = useMemo(() => toDeviceListBody(params), [params]);
  const devices = useQuery({
    queryKey: ['devices', body],
    queryFn: ({ signal }) => nap.devices(body, signal),
    placeholderData: keepPreviousData,
  });
  const groups = useQuery({ queryKey: ['device-groups'], queryFn: nap.deviceGroups });
  // a change starts from the URL as it is now, which a render may not have drawn yet
  const update = (changes: Partial<DeviceListParams>, options?: { replace: true }) =>
    editSearch((now) => writeDeviceParams({ ...readDeviceParams(now), ...changes }), options);

  // the range describes the rows on screen: while another page loads the previous answer stays (keepPreviousData)
  const shown = devices.data;
  const rows = shown?.items ?? [];
  const total = shown?.total ?? 0;
  const filtered = params.name !== '' || params.group !== '';
  const loading = devices.isPlaceholderData;
  usePageClamp(params.page, shown && !loading ? { total, limit: params.limit, count: rows.length } : undefined, (last) =>
    update({ page: last }, { replace: true }),
  );

  return (
    <div className="page">
      <div className="page-header">
        <h1>Devices</h1>
        <span className="muted">{devices.isSuccess && !filtered ? `${NUMBER.format(total)} in the inventory` : ''}</span>
      </div>
      <DeviceFilters params={params} groups={groups.data} onChange={update} />
      <ErrorMessage error={groups.error} title="The groups cannot be listed" />
      <ErrorMessage error={devices.error} title="The devices cannot be listed" />
      <div className={frame.tableWrap} aria-busy={devices.isFetching}>
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
      <Pager
        label="Pages of devices"
        noun={['device', 'devices']}
        shown={shown === undefined ? undefined : { skip: shown.skip, limit: shown.limit, count: rows.length, total, exact: true }}
        page={params.page}
        limit={params.limit}
        sizes={DEVICE_PAGE_SIZES}
        loading={loading}
        onChange={update}
      />
    </div>
  );
}
