import { useEffect, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
// the log levels are a pure module of the contracts (no server code)
import { LOG_LEVELS } from '@nap/contracts/dist/applications';
import { formatDuration, formatTime } from '../../api/job-data';
import { platform } from '../../api/platform';
import type { AdapterRecord, LogLevel } from '../../api/platform';
import { ErrorMessage } from '../../components/error-message';
import { UnavailablePage } from '../../components/unavailable-page';
import { JsonView } from '../../components/json-view';
import { StatusBadge } from '../../components/status-badge';
import { useNow } from '../../hooks/use-now';
import { AdapterActions } from './adapter-actions';
import { agoText } from './adapters-section';
import { OutcomeLine } from './outcome';
import type { Outcome } from './outcome';
import { TONE_BADGE, adapterCheckUrl, adapterEndpoint, adapterRows, healthcheckOf, logLevelOf, maskedPaths } from './platform-status';
import { PLATFORM_KEY, useAdapter } from './queries';
import { RefreshFailure, RefreshLine } from './refresh';
import jobStyles from '../job/job-page.module.css';
import styles from './platform.module.css';

/** The audit records read to say who stopped a STOPPED adapter. */
const AUDIT_LIMIT = 20;

/** The adapter's log level: what its loggerProps record, and a select to change it (`PUT /adapters/:name/loglevel`). */
function LogLevelCard({ name, record }: { name: string; record: AdapterRecord }) {
  const client = useQueryClient();
  const current = logLevelOf(record.data.loggerProps);
  // none set: the select shows no level (not one it does not log at) until the person picks one
  const [chosen, setChosen] = useState<string>(current ?? '');
  const [outcome, setOutcome] = useState<Outcome>();
  useEffect(() => {
    // another person's change, seen by a refresh, moves the select while this one has not chosen
    if (current !== undefined) setChosen(current);
  }, [current]);
  const set = useMutation({
    mutationFn: (level: LogLevel) => platform.setAdapterLogLevel(name, level),
    onSuccess: async (props) => {
      setOutcome({ text: `Log level of ${name} set to ${logLevelOf(props) ?? chosen}.` });
      await client.invalidateQueries({ queryKey: [...PLATFORM_KEY, 'adapter', name] });
    },
    onError: (error) => setOutcome({ error, title: 'The log level was not changed' }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if ((LOG_LEVELS as readonly string[]).includes(chosen)) set.mutate(chosen as LogLevel);
  };
  return (
    <section aria-labelledby="log-level-title" className={`card ${styles.section}`}>
      <h2 id="log-level-title">Log level</h2>
      <p className={styles.note}>
        {current === undefined
          ? 'None set: the adapter logs at the admin service’s level.'
          : `It logs at ${current}: its connection checks and the calls through it.`}
      </p>
      <form className={styles.levelForm} onSubmit={submit}>
        <div className={styles.levelField}>
          <label htmlFor="adapter-log-level">Level</label>
          <select id="adapter-log-level" value={chosen} onChange={(event) => setChosen(event.target.value)}>
            {current === undefined ? (
              <option value="" disabled>
                choose a level
              </option>
            ) : null}
            {LOG_LEVELS.map((level) => (
              <option key={level} value={level}>
                {level}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button button-primary" disabled={set.isPending || chosen === '' || chosen === current}>
          {set.isPending ? 'Setting…' : 'Set level'}
        </button>
      </form>
      <OutcomeLine outcome={outcome} />
      <p className={styles.note}>NAP writes one log, JSON lines on stdout; spam is logged as trace.</p>
    </section>
  );
}

/** The changes of the adapter's document the platform keeps (`GET /adapters/:name/changelogs`), newest first. */
function ChangelogCard({ name }: { name: string }) {
  const changelogs = useQuery({
    queryKey: [...PLATFORM_KEY, 'adapter', name, 'changelogs'],
    queryFn: () => platform.adapterChangelogs(name),
  });
  const entries = changelogs.data?.results ?? [];
  return (
    <section aria-labelledby="changelog-title" className={`card ${styles.section}`}>
      <h2 id="changelog-title">Changelog</h2>
      <ErrorMessage error={changelogs.error} title="The changelog cannot be read" />
      {changelogs.isSuccess && entries.length === 0 ? <p className={styles.note}>No change of its document is recorded.</p> : null}
      {entries.length > 0 ? (
        <div className={styles.tableWrap}>
          <table className="table">
            <caption className="visually-hidden">Changelog</caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Date</th>
                <th scope="col">Change</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={`${entry.version}-${entry.date}`}>
                  <td>{entry.version}</td>
                  <td className="nowrap">{entry.date ? formatTime(Date.parse(entry.date)) : '—'}</td>
                  <td>{entry.changes}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <p className={styles.note}>
        Starts, stops, restarts and log levels are in the <Link to={`/audit?target=${encodeURIComponent(name)}`}>audit trail</Link>.
      </p>
    </section>
  );
}

/** The adapter's properties as the platform answers them: secrets arrive masked, and are shown so. */
function PropertiesCard({ name, record }: { name: string; record: AdapterRecord }) {
  const masked = maskedPaths(record.data.properties);
  return (
    <section aria-labelledby="properties-title" className={`card ${styles.section} ${styles.properties}`}>
      <h2 id="properties-title">Properties</h2>
      {masked.length > 0 ? (
        <p className={styles.note}>
          Secrets are stored sealed and answered masked (********) by the platform:{' '}
          {masked.map((path, i) => (
            <span key={path}>
              {i > 0 ? ', ' : ''}
              <code>{path}</code>
            </span>
          ))}
          .
        </p>
      ) : (
        <p className={styles.note}>No secret among its properties.</p>
      )}
      <JsonView value={record.data.properties} label={`Properties of ${name}`} />
    </section>
  );
}

/**
 * `/console/platform/adapters/<name>`: an adapter's state and health (refreshed every 10 s), start,
 * stop and restart, its properties as the platform answers them (secrets masked), its log level and
 * its changelog.
 */
export function AdapterPage() {
  const { name = '' } = useParams();
  const adapter = useAdapter(name);
  const now = useNow(true);
  const [outcome, setOutcome] = useState<Outcome>();
  const heading = useRef<HTMLHeadingElement>(null);
  const stopped = adapter.data?.health.state === 'STOPPED';
  const audit = useQuery({
    queryKey: [...PLATFORM_KEY, 'adapter', name, 'audit'],
    queryFn: () => platform.auditOfTarget(name, AUDIT_LIMIT),
    enabled: stopped,
  });
  useEffect(() => {
    // the button that was used is gone with the state it acted on: the focus goes to the heading, the outcome under it
    if (outcome !== undefined) heading.current?.focus();
  }, [outcome]);
  if (adapter.isPending) return <p className="page muted">Reading the adapter…</p>;
  if (adapter.data === undefined)
    return (
      <UnavailablePage subject={`Adapter “${name}”`} error={adapter.error} back={{ to: '/platform', label: 'Back to the platform' }} />
    );
  const { record, health, readAt } = adapter.data;
  const [row] = adapterRows([health], [record], audit.data?.results ?? [], readAt);
  const hc = healthcheckOf(record);
  const failing = row !== undefined && row.tone === 'problem';
  return (
    <div className={`page ${jobStyles.page}`}>
      <div className="page-header">
        <nav aria-label="Breadcrumb" className={jobStyles.breadcrumbs}>
          <ol>
            <li>
              <Link to="/platform">Platform</Link>
            </li>
            <li>
              <span aria-current="page">{name}</span>
            </li>
          </ol>
        </nav>
        <RefreshLine queries={[adapter]} />
      </div>
      <RefreshFailure queries={[adapter]} />
      <div className={jobStyles.summary}>
        <div className="stack">
          <div className="row">
            <h1 ref={heading} tabIndex={-1}>
              {name}
            </h1>
            {row ? <StatusBadge status={TONE_BADGE[failing && row.state === 'RUNNING' ? 'ok' : row.tone]} label={health.state} /> : null}
          </div>
          <dl className={jobStyles.facts}>
            <div>
              <dt>Type</dt>
              <dd>{health.type ?? record.data.properties.type}</dd>
            </div>
            <div>
              <dt>Model</dt>
              <dd className="mono">{record.data.model ?? '—'}</dd>
            </div>
            <div>
              <dt>
                {health.state === 'STOPPED' ? 'Stopped' : health.state === 'DEAD' ? 'Dead' : health.state === 'RUNNING' ? 'Up' : 'Since'}
              </dt>
              <dd>
                {row?.since === undefined ? (
                  // a new adapter is created stopped, and an old stop may be past the audit records read
                  <span className="muted">{health.state === 'STOPPED' ? 'no stop recorded' : '—'}</span>
                ) : health.state === 'STOPPED' ? (
                  `by ${row.stoppedBy ?? 'an operator'}, ${agoText(row.since, now)} (${formatTime(row.since)})`
                ) : (
                  `for ${formatDuration(Math.max(0, now - row.since))} (since ${formatTime(row.since)})`
                )}
              </dd>
            </div>
            <div>
              <dt>Connection</dt>
              <dd>
                <span
                  className={
                    health.connection.state === 'OFFLINE'
                      ? styles.offline
                      : health.connection.state === 'ONLINE'
                        ? styles.online
                        : undefined
                  }
                >
                  {health.connection.state}
                </span>
                {health.state === 'STOPPED' ? <span className="muted"> (not checked while stopped)</span> : null}
              </dd>
            </div>
            <div>
              <dt>System</dt>
              <dd className="mono">{adapterEndpoint(record) ?? '—'}</dd>
            </div>
            <div>
              <dt>Connection check</dt>
              <dd>
                <span className="mono">GET {adapterCheckUrl(record) ?? hc.path}</span> every {hc.intervalSeconds} s; DEAD after{' '}
                {hc.failuresBeforeDead} failed in a row
              </dd>
            </div>
            {health.lastCheck ? (
              <div>
                <dt>Last check</dt>
                <dd>{formatTime(Date.parse(health.lastCheck))}</dd>
              </div>
            ) : null}
            {record.data.properties.brokers && record.data.properties.brokers.length > 0 ? (
              <div>
                <dt>Brokers</dt>
                <dd>{record.data.properties.brokers.join(', ')}</dd>
              </div>
            ) : null}
          </dl>
          {failing && health.lastError ? (
            <div className={jobStyles.errors}>
              <strong>
                {health.state === 'DEAD'
                  ? `DEAD after ${hc.failuresBeforeDead} failed connection check${hc.failuresBeforeDead === 1 ? '' : 's'} in a row; the last, ${formatTime(Date.parse(health.lastError.at))}:`
                  : `Its connection checks fail; the last, ${formatTime(Date.parse(health.lastError.at))}:`}
              </strong>{' '}
              {health.lastError.message}
              <p className={styles.note}>
                {health.state === 'DEAD' ? (
                  <>
                    Its checks have stopped. Tasks that call it fail with <code>ADAPTER_NOT_RUNNING</code> until it is restarted.
                  </>
                ) : (
                  <>
                    Calls through it reach a system that does not answer well; after {hc.failuresBeforeDead} failed checks in a row it is
                    DEAD.
                  </>
                )}
              </p>
            </div>
          ) : null}
          {health.state === 'STOPPED' ? (
            <p className={styles.note}>
              Tasks that call it fail with <code>ADAPTER_NOT_RUNNING</code> until it is started.
            </p>
          ) : null}
        </div>
        <AdapterActions name={name} state={health.state} record={record} onOutcome={setOutcome} />
      </div>
      <OutcomeLine outcome={outcome} />
      {/* what an operator acts on (the log level) comes before the long properties: first on a phone, the right column when wide */}
      <div className={styles.adapterGrid}>
        <div className={`stack ${styles.adapterSide}`}>
          <LogLevelCard name={name} record={record} />
          <ChangelogCard name={name} />
        </div>
        <PropertiesCard name={name} record={record} />
      </div>
    </div>
  );
}
