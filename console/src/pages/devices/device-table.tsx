import { Link } from 'react-router';
import { deviceSshEndpoint } from '@nap/contracts/dist/device-endpoints';
import type { InventoryDevice } from '../../api/nap';
import { writeDeviceParams } from './device-list-params';
import styles from './devices-page.module.css';

/** A device's page in the console. */
export function devicePath(name: string): string {
  return `/devices/${encodeURIComponent(name)}`;
}

/** The list filtered by one group alone: a group names where to look next. */
export function groupPath(group: string): string {
  return `/devices?${writeDeviceParams({ name: '', group, page: 1, limit: 25 }).toString()}`;
}

/** The groups of a device, each a link to the list of its members. */
export function DeviceGroups({ groups }: { groups: readonly string[] }) {
  if (groups.length === 0) return <span className="muted">none</span>;
  return (
    <ul className={styles.groups}>
      {groups.map((group) => (
        <li key={group}>
          <Link to={groupPath(group)} aria-label={`Group ${group}`}>
            {group}
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** The devices of one page: a real table, the name linking to the device's page. */
export function DeviceTable({ devices }: { devices: readonly InventoryDevice[] }) {
  return (
    <table className="table">
      <caption className="visually-hidden">Devices</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Network OS</th>
          <th scope="col">Address</th>
          <th scope="col">Groups</th>
        </tr>
      </thead>
      <tbody>
        {devices.map((device) => {
          const os = device.variables.gw_network_os;
          return (
            <tr key={device.name}>
              <td className={styles.name}>
                <Link to={devicePath(device.name)}>{device.name}</Link>
              </td>
              <td className="mono">{typeof os === 'string' && os !== '' ? os : <span className="muted">not set</span>}</td>
              <td className="mono">{deviceSshEndpoint(device.name, device.variables)}</td>
              <td className={styles.groupsCell}>
                <DeviceGroups groups={device.groups} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
