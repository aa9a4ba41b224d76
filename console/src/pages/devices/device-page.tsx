import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { deviceSshEndpoint } from '@nap/contracts/dist/device-endpoints';
import { formatTime } from '../../api/job-data';
import { nap } from '../../api/nap';
import { UnavailablePage } from '../../components/unavailable-page';
import { mayRead } from '../../session/permissions';
import { usePermissions } from '../../session/session';
import { CheckDevice } from './check-device';
import { DeviceGroups } from './device-table';
import { HostKeyCard } from './host-key-card';
import { RecentChecks } from './recent-checks';
import { RunCommands } from './run-commands';
import { VariablesTable } from './variables-table';
import jobStyles from '../job/job-page.module.css';
import styles from './device-page.module.css';

/** When and by whom a device was written, as the platform recorded it. */
function changedText(iso: string | undefined, by: string | undefined): string {
  if (iso === undefined) return '—';
  const when = formatTime(Date.parse(iso));
  return by ? `${when} by ${by}` : when;
}

/**
 * `/console/devices/<name>`: an inventory device (`POST /gw/getInventoryDevice`): its variables
 * (secrets as the platform masks them), its groups, the SSH host key the gateway trusts for it
 * with `Forget key`, and `Run commands` and a check with a MOP command template for a caller who
 * may run them.
 */
export function DevicePage() {
  const { name = '' } = useParams();
  const { may, whoami } = usePermissions();
  const device = useQuery({ queryKey: ['device', name], queryFn: () => nap.device(name) });
  if (device.isPending) return <p className="page muted">Loading the device…</p>;
  if (device.isError)
    return <UnavailablePage subject={`Device “${name}”`} error={device.error} back={{ to: '/devices', label: 'Back to the devices' }} />;
  const doc = device.data;
  const hostPort = deviceSshEndpoint(doc.name, doc.variables);
  const os = doc.variables.gw_network_os;
  const user = doc.variables.gw_user;
  const mayRun = may('gateway-devices.sshSendCommandExec');
  const mayForget = may('gateway-devices.forgetHostKey');
  const mayCheck = may('mop.RunCommandTemplate');
  const mayReadChecks = mayRead(whoami, 'mop.getTemplateRuns');
  return (
    <div className={`page ${jobStyles.page}`}>
      <nav aria-label="Breadcrumb" className={jobStyles.breadcrumbs}>
        <ol>
          <li>
            <Link to="/devices">Devices</Link>
          </li>
          <li>
            <span aria-current="page">{doc.name}</span>
          </li>
        </ol>
      </nav>
      <div className={jobStyles.summary}>
        <div className="stack">
          <h1>{doc.name}</h1>
          <dl className={jobStyles.facts}>
            <div>
              <dt>Network OS</dt>
              <dd className="mono">{typeof os === 'string' && os !== '' ? os : <span className="muted">not set</span>}</dd>
            </div>
            <div>
              <dt>Address</dt>
              <dd className="mono">{hostPort}</dd>
            </div>
            <div>
              <dt>User</dt>
              <dd className="mono">{typeof user === 'string' && user !== '' ? user : <span className="muted">not set</span>}</dd>
            </div>
            <div>
              <dt>Groups</dt>
              <dd>
                <DeviceGroups groups={doc.groups} />
              </dd>
            </div>
            <div>
              <dt>Last changed</dt>
              <dd>{changedText(doc.updated ?? doc.created, doc.updatedBy ?? doc.createdBy)}</dd>
            </div>
          </dl>
        </div>
      </div>
      <div className={`${styles.workspace} ${mayRun || mayCheck ? styles.withRun : ''}`}>
        <div className={styles.details}>
          <VariablesTable variables={doc.variables} />
          <HostKeyCard device={doc.name} hostPort={hostPort} checking={doc.variables.host_key_checking} mayForget={mayForget} />
          {mayReadChecks ? <RecentChecks device={doc.name} /> : null}
        </div>
        {mayRun || mayCheck ? (
          <div className={styles.details}>
            {mayRun ? <RunCommands device={doc.name} hostPort={hostPort} mayForget={mayForget} /> : null}
            {mayCheck ? <CheckDevice device={doc.name} os={typeof os === 'string' && os !== '' ? os : undefined} /> : null}
          </div>
        ) : null}
      </div>
    </div>
  );
}
