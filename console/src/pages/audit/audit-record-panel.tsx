import { useId, useLayoutEffect, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { AuditRecord } from '../../api/nap';
import { JsonView } from '../../components/json-view';
import { maySee } from '../../session/permissions';
import { useWhoami } from '../../session/session';
import { AuditOutcome } from './audit-outcome';
import styles from './audit-record-panel.module.css';

type AuditActor = AuditRecord['actor'];
type AuditChange = NonNullable<AuditRecord['changes']>[number];

/** How an actor proved who it is, as people say it (the compiler keeps one phrase per method the contract knows). */
const AUTH_TEXT: { readonly [Method in NonNullable<AuditActor['auth']>]: string } = {
  bearer: 'Bearer token',
  cookie: 'console session (cookie)',
  query: 'token in the URL',
  basic: 'Basic credentials',
  password: 'username and password',
  oauth: 'client credentials (OAuth)',
  sso: 'identity provider (SSO)',
  none: 'no credentials',
};

/** The audit page's address filtered by one filter alone: following a thread starts from all of its records. */
function filterSearch(key: 'target' | 'actor', value: string): string {
  return `?${new URLSearchParams({ [key]: value }).toString()}`;
}

/** A JSON value on one line, spaced to be read: `["a", "b"]`, `{"host": "core-1"}`. */
function compactJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(compactJson).join(', ')}]`;
  if (typeof value === 'object' && value !== null)
    return `{${Object.entries(value)
      .map(([key, member]) => `${JSON.stringify(key)}: ${compactJson(member)}`)
      .join(', ')}}`;
  return JSON.stringify(value) ?? String(value);
}

/** A changed value as text: a string as it is when it cannot be taken for another value ("42", "", " x"), anything else as JSON. */
function valueText(value: unknown): string {
  if (typeof value === 'string' && value !== '' && value.trim() === value && !parsesAsJson(value)) return value;
  return compactJson(value);
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A value of a change, at most a few lines high; when it scrolls, the keyboard can reach it to scroll it. */
function ChangeValue({ text, label }: { text: string; label: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrolls, setScrolls] = useState(false);
  useLayoutEffect(() => {
    const element = ref.current;
    if (element === null) return undefined;
    const measure = () => setScrolls(element.scrollHeight > element.clientHeight);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [text]);
  return (
    <div ref={ref} className={`${styles.value} mono`} {...(scrolls ? { tabIndex: 0, role: 'group', 'aria-label': label } : {})}>
      {text}
    </div>
  );
}

/** One side of a change: its value, or that the member was not there. */
function ChangeSide({ change, side }: { change: AuditChange; side: 'before' | 'after' }) {
  const value = change[side];
  if (value === undefined) return <span className="muted">— ({side === 'before' ? 'added' : 'removed'})</span>;
  return <ChangeValue text={valueText(value)} label={`${change.member} ${side}`} />;
}

/** What a secret member's change says: only that it changed (or was set, or removed). */
function secretText(change: AuditChange): string {
  const what = change.before === undefined ? 'set' : change.after === undefined ? 'removed' : 'changed';
  return `${what} (secret: the value is never recorded)`;
}

/** "What changed": one row per changed member, with its values before and after as the record keeps them. */
function ChangeTable({ changes }: { changes: readonly AuditChange[] }) {
  const titleId = useId();
  return (
    <section className={styles.changes} aria-labelledby={titleId}>
      <h2 id={titleId} className={styles.heading}>
        What changed
      </h2>
      <table className={styles.changeTable} aria-labelledby={titleId}>
        <thead>
          <tr>
            <th scope="col">Member</th>
            <th scope="col">Before</th>
            <th scope="col">After</th>
          </tr>
        </thead>
        <tbody>
          {changes.map((change) => (
            <tr key={change.member}>
              <th scope="row">
                <span className={`mono ${styles.member}`}>{change.member}</span>
                {change.digest === true ? <span className={styles.note}>too large to keep: SHA-256 digests</span> : null}
              </th>
              {change.secret === true ? (
                <td colSpan={2} className={styles.secret}>
                  {secretText(change)}
                </td>
              ) : (
                <>
                  <td>
                    <ChangeSide change={change} side="before" />
                  </td>
                  <td>
                    <ChangeSide change={change} side="after" />
                  </td>
                </>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** A line of a fact under its main line: a muted label and its value. */
function Detail({ label, children, mono = false }: { label?: string; children: ReactNode; mono?: boolean }) {
  return (
    <span className={styles.detail}>
      {label ? <span className="muted">{label} </span> : null}
      <span className={mono ? `mono ${styles.id}` : undefined}>{children}</span>
    </span>
  );
}

/** One fact of the record: its term and what the record says. */
function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function NotRecorded() {
  return <span className="muted">not recorded</span>;
}

function ActorFact({ actor }: { actor: AuditActor }) {
  return (
    <>
      <span className={styles.main}>
        <strong>{actor.username}</strong>
        {actor.kind === 'account' ? null : <span className="muted"> ({actor.kind})</span>}
        {actor.onBehalfOf !== undefined ? <> on behalf of {actor.onBehalfOf}</> : null}
      </span>
      {actor.auth !== undefined ? <Detail>{AUTH_TEXT[actor.auth]}</Detail> : null}
      {actor.accountId !== undefined ? (
        <Detail label="account id" mono>
          {actor.accountId}
        </Detail>
      ) : null}
    </>
  );
}

function RequestFact({ record }: { record: AuditRecord }) {
  return (
    <>
      <span className={`${styles.main} mono ${styles.id}`}>
        <strong>{record.method}</strong> {record.route ?? ''}
      </span>
      {record.method === 'PLATFORM' ? <Detail>the platform acting on its own, not an HTTP request</Detail> : null}
      {record.requestId !== undefined ? (
        <Detail label="request id" mono>
          {record.requestId}
        </Detail>
      ) : null}
    </>
  );
}

function SourceFact({ source }: { source: AuditRecord['source'] }) {
  if (source?.address === undefined && source?.userAgent === undefined) return <NotRecorded />;
  return (
    <>
      <span className={`${styles.main} mono`}>{source.address ?? 'address not recorded'}</span>
      {source.userAgent !== undefined ? <Detail label="user agent">{source.userAgent}</Detail> : null}
    </>
  );
}

function TargetFact({ target }: { target: AuditRecord['target'] }) {
  if (target === undefined) return <span className="muted">none named</span>;
  return (
    <>
      <span className={styles.main}>
        <span className="muted">{target.kind}</span> {target.name !== undefined ? <strong>{target.name}</strong> : null}
      </span>
      {target.id !== undefined ? (
        <Detail label="id" mono>
          {target.id}
        </Detail>
      ) : null}
    </>
  );
}

/** The links that follow a record's thread: the other records of its target and of its actor, and the job it acted on. */
function FollowLinks({ record }: { record: AuditRecord }) {
  const { data: whoami } = useWhoami();
  const targetId = record.target?.id;
  const jobId = record.target?.kind === 'job' && maySee(whoami, 'workflow.getJobs') ? targetId : undefined;
  return (
    <ul className={styles.follow} aria-label={`Follow record ${record.seq}`}>
      {targetId !== undefined ? (
        <li>
          <Link to={{ search: filterSearch('target', targetId) }}>Records of this target</Link>
        </li>
      ) : null}
      <li>
        <Link to={{ search: filterSearch('actor', record.actor.username) }}>Records of this actor</Link>
      </li>
      {jobId !== undefined ? (
        <li>
          <Link to={`/jobs/${encodeURIComponent(jobId)}`}>Open the job’s page</Link>
        </li>
      ) : null}
    </ul>
  );
}

/** The element id of a record's opened panel (the button that opens it controls it). */
export function auditRecordPanelId(seq: number): string {
  return `audit-record-${seq}`;
}

/**
 * An opened audit record as an auditor reads it: who, how, from where, what on, how it ended and
 * what changed; links to the records of the same target and actor; the record as JSON one click
 * away (with the hashes that chain it).
 */
export function AuditRecordPanel({ record }: { record: AuditRecord }) {
  const changes = record.changes ?? [];
  return (
    <section id={auditRecordPanelId(record.seq)} aria-label={`Record ${record.seq}`} className={styles.panel}>
      <dl className={styles.facts}>
        <Fact term="Time">
          <time className={styles.main} dateTime={record.timestamp}>
            {record.timestamp}
          </time>
        </Fact>
        <Fact term="Actor">
          <ActorFact actor={record.actor} />
        </Fact>
        <Fact term="Request">
          <RequestFact record={record} />
        </Fact>
        <Fact term="Source">
          <SourceFact source={record.source} />
        </Fact>
        <Fact term="Target">
          <TargetFact target={record.target} />
        </Fact>
        <Fact term="Outcome">
          <AuditOutcome outcome={record.outcome} />
        </Fact>
      </dl>
      {changes.length > 0 ? <ChangeTable changes={changes} /> : null}
      <FollowLinks record={record} />
      <details className={styles.raw}>
        <summary>Record as JSON</summary>
        <JsonView value={record} label={`Audit record ${record.seq}`} />
      </details>
    </section>
  );
}
