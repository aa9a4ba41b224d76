import { Fragment, useState } from 'react';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { formatTime } from '../../api/job-data';
import { nap } from '../../api/nap';
import type { AuditRecord } from '../../api/nap';
import { ErrorMessage } from '../../components/error-message';
import { FilterFold, setCount } from '../../components/filter-fold';
import { usePageClamp } from '../../hooks/use-page-clamp';
import bar from '../../components/filter-bar.module.css';
import { TimeFilterField, useTimeFilter } from '../../components/time-filter';
import { TypedFilterField, useTypedFilter } from '../../components/typed-filter';
import { WorkflowName, useProjectNames } from '../../components/workflow-name';
import { AuditOutcome } from './audit-outcome';
import { AuditRecordPanel, auditRecordPanelId } from './audit-record-panel';
import styles from './audit-page.module.css';
import { useUrlSearch } from '../../hooks/use-url-search';

const PAGE_SIZE = 50;

/** The text filters, typed and kept in the URL once typing settles. */
const TEXT_FILTERS = [
  { key: 'actor', label: 'Actor', placeholder: 'username' },
  { key: 'operation', label: 'Operation', placeholder: 'admin.updateAccount' },
  { key: 'target', label: 'Target id', placeholder: 'id of a job, account…' },
  { key: 'targetName', label: 'Target name', placeholder: 'name of a workflow, group…' },
] as const;
type TextFilter = (typeof TEXT_FILTERS)[number]['key'];
/** Every filter of the URL: how many are set is what the folded bar of a phone says. */
const AUDIT_FILTERS = ['actor', 'operation', 'target', 'targetName', 'outcome', 'since', 'until'] as const;

/** A time filter's value (`2026-12-05T10:12`, the person's own clock) as the ISO 8601 time the platform reads; '' when empty or unreadable. */
function isoOf(local: string): string {
  const ms = local === '' ? Number.NaN : Date.parse(local);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : '';
}

/**
 * What a record acted on, as people name it: its kind and name (else id); a project member (a job
 * of a project's workflow) by its own name and its project's, as the jobs list names it.
 */
function Target({ record, projects }: { record: AuditRecord; projects: ReadonlyMap<string, string> }) {
  const target = record.target;
  if (target === undefined) return <>—</>;
  const what = target.name ?? target.id;
  if (what === undefined) return <>{target.kind}</>;
  return (
    <>
      {target.kind} <WorkflowName name={what} projects={projects} />
    </>
  );
}

/** A time as the console writes times; on a narrow page the time goes under the date, never a date split at its hyphens. */
function When({ iso }: { iso: string }) {
  const [date, time] = formatTime(Date.parse(iso)).split(' ');
  return (
    <>
      <span className="nowrap">{date}</span> <span className="nowrap">{time}</span>
    </>
  );
}

/** One text filter whose value reaches the URL once typing settles (Enter sends it at once). */
function TextField({
  name,
  label,
  placeholder,
  value,
  onChange,
}: {
  name: TextFilter;
  label: string;
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
}) {
  const filter = useTypedFilter(value, onChange);
  return <TypedFilterField id={`audit-${name}`} label={label} placeholder={placeholder} filter={filter} />;
}

/**
 * `/console/audit`: the audit trail for the `admin` and `auditor` roles: who did what to what and
 * how it ended, newest first, filtered as `GET /audit` filters (the filters live in the URL);
 * a record opens to show everything it holds, as people read it and as JSON; the chain can be verified and exported from here.
 */
export function AuditPage() {
  const [search, editSearch] = useUrlSearch();
  const param = (key: string) => search.get(key) ?? '';
  const page = Math.max(1, Number(search.get('page')) || 1);
  const change = (changes: Record<string, string>) => {
    // from the URL as it is now: a filter typed just after Clear filters must not bring the cleared ones back
    editSearch((next) => {
      for (const [key, value] of Object.entries(changes)) {
        if (value === '') next.delete(key);
        else next.set(key, value);
      }
      if (!('page' in changes)) next.delete('page');
    });
  };
  const sinceFilter = useTimeFilter(param('since'), (value) => change({ since: value }));
  const untilFilter = useTimeFilter(param('until'), (value) => change({ until: value }));
  const since = isoOf(param('since'));
  const until = isoOf(param('until'));
  const query = {
    limit: PAGE_SIZE,
    skip: (page - 1) * PAGE_SIZE,
    actor: param('actor') || undefined,
    operation: param('operation') || undefined,
    targetId: param('target') || undefined,
    // what people call it, whatever its id: a deleted workflow's records by its name
    equals: param('targetName') ? { 'target.name': param('targetName') } : undefined,
    outcome: param('outcome') || undefined,
    since: since || undefined,
    until: until || undefined,
  };
  const records = useQuery({ queryKey: ['audit', query], queryFn: () => nap.audit(query), placeholderData: keepPreviousData });
  const verify = useMutation({ mutationFn: nap.verifyAudit });
  const [open, setOpen] = useState<number | undefined>(undefined);
  const results = records.data?.results ?? [];
  const projects = useProjectNames(results.flatMap((r) => (r.target?.name === undefined ? [] : [r.target.name])));
  const total = records.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  usePageClamp(
    page,
    records.data && !records.isPlaceholderData ? { total, limit: PAGE_SIZE, count: results.length } : undefined,
    (last) => {
      editSearch((next) => void next.set('page', String(last)), { replace: true });
    },
  );
  // text typed in a time box that is not a time is something to clear too
  const filtered = AUDIT_FILTERS.some((key) => param(key) !== '') || sinceFilter.typed !== '' || untilFilter.typed !== '';
  const verification = verify.data;
  return (
    <div className="page">
      <div className="page-header">
        <h1>Audit trail</h1>
        <div className="row">
          <span className="muted">{records.isSuccess ? `${total} record${total === 1 ? '' : 's'}` : ''}</span>
          <button type="button" className="button" onClick={() => verify.mutate()} disabled={verify.isPending}>
            {verify.isPending ? 'Verifying…' : 'Verify the chain'}
          </button>
          <a className={`button ${styles.exportLink}`} href={nap.auditExportUrl({ since, until })} download="audit.ndjson">
            Export (NDJSON)
          </a>
        </div>
      </div>
      <div role="status" aria-live="polite">
        {verification ? (
          verification.valid ? (
            <p className={styles.holds}>
              <span aria-hidden="true">✓</span> The chain holds: {verification.checked} record{verification.checked === 1 ? '' : 's'}{' '}
              checked
              {typeof verification.from === 'number' && verification.from > 1
                ? `, from record ${verification.from} (retention removed the older ones)`
                : ''}
              .
            </p>
          ) : (
            <p className={styles.broken}>
              <span aria-hidden="true">✕</span> The chain is broken at record {verification.firstBroken ?? '?'}:{' '}
              {verification.reason ?? 'no reason given'} ({verification.checked} checked).
            </p>
          )
        ) : null}
      </div>
      <ErrorMessage error={verify.error} title="The chain cannot be verified" />
      <FilterFold count={setCount(AUDIT_FILTERS.map(param))}>
        <form role="search" aria-label="Filter the audit trail" className={bar.filters} onSubmit={(e) => e.preventDefault()}>
          {TEXT_FILTERS.map((f) => (
            <TextField
              key={f.key}
              name={f.key}
              label={f.label}
              placeholder={f.placeholder}
              value={param(f.key)}
              onChange={(value) => change({ [f.key]: value })}
            />
          ))}
          <div className={bar.field}>
            <label htmlFor="audit-outcome">Outcome</label>
            <select id="audit-outcome" value={param('outcome')} onChange={(e) => change({ outcome: e.target.value })}>
              <option value="">any</option>
              <option value="success">success</option>
              <option value="failure">failure (refused or failed)</option>
            </select>
          </div>
          <TimeFilterField id="audit-since" label="From" filter={sinceFilter} />
          <TimeFilterField id="audit-until" label="Before" filter={untilFilter} />
          <button
            type="button"
            className="button"
            disabled={!filtered}
            onClick={() => {
              sinceFilter.setTyped('');
              untilFilter.setTyped('');
              change({ actor: '', operation: '', target: '', targetName: '', outcome: '', since: '', until: '' });
            }}
          >
            Clear filters
          </button>
        </form>
      </FilterFold>
      <ErrorMessage error={records.error} title="The audit trail cannot be read" />
      <div className="card table-card">
        <table className="table">
          <caption className="visually-hidden">Audit records, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Record</th>
              <th scope="col">Time</th>
              <th scope="col">Actor</th>
              <th scope="col">Operation</th>
              <th scope="col">Target</th>
              <th scope="col">Outcome</th>
            </tr>
          </thead>
          <tbody>
            {results.map((record) => (
              <Fragment key={record.seq}>
                <tr data-selected={open === record.seq ? 'true' : undefined}>
                  <td>
                    <button
                      type="button"
                      className={styles.seq}
                      aria-expanded={open === record.seq}
                      aria-controls={open === record.seq ? auditRecordPanelId(record.seq) : undefined}
                      aria-label={`Record ${record.seq}: ${open === record.seq ? 'hide' : 'show'} everything it holds`}
                      onClick={() => setOpen(open === record.seq ? undefined : record.seq)}
                    >
                      <span aria-hidden="true">{open === record.seq ? '▾' : '▸'}</span> {record.seq}
                    </button>
                  </td>
                  <td>
                    <When iso={record.timestamp} />
                  </td>
                  <td>
                    {record.actor.username}
                    {record.actor.kind === 'account' ? null : <span className="muted"> ({record.actor.kind})</span>}
                  </td>
                  <td>
                    <span className="mono">{record.operation}</span>
                    {record.changes?.length ? (
                      <span className={styles.changeCount}>
                        {record.changes.length} change{record.changes.length === 1 ? '' : 's'}
                      </span>
                    ) : null}
                  </td>
                  <td>
                    <div className="cell-text">
                      <Target record={record} projects={projects} />
                    </div>
                  </td>
                  <td>
                    <AuditOutcome outcome={record.outcome} />
                  </td>
                </tr>
                {open === record.seq ? (
                  <tr className={styles.details}>
                    <td colSpan={6}>
                      <AuditRecordPanel record={record} />
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            ))}
          </tbody>
        </table>
        {records.isSuccess && results.length === 0 ? (
          <p className="empty-note">{filtered ? 'No record matches these filters.' : 'Nothing has been recorded yet.'}</p>
        ) : null}
        {records.isPending ? <p className="empty-note">Loading the audit trail…</p> : null}
      </div>
      <nav aria-label="Pages of audit records" className="row">
        <button
          type="button"
          className="button"
          disabled={page <= 1}
          onClick={() => change({ page: page - 1 === 1 ? '' : String(page - 1) })}
        >
          Previous page
        </button>
        <span>
          Page {page} of {pages}
        </span>
        <button type="button" className="button" disabled={page >= pages} onClick={() => change({ page: String(page + 1) })}>
          Next page
        </button>
      </nav>
    </div>
  );
}
