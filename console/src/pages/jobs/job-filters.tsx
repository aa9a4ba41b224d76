import { JOB_STATUSES } from '../../api/job-data';
import { TypedFilterField, useTypedFilter } from '../../components/typed-filter';
import { emptyRange } from './job-list-params';
import type { JobListParams } from './job-list-params';
import bar from '../../components/filter-bar.module.css';

interface JobFiltersProps {
  params: JobListParams;
  onChange: (changes: Partial<JobListParams>) => void;
  /** The name of the trigger the list is narrowed to (`params.trigger`), when a job on the page says it. */
  triggerName?: string | undefined;
}

/** Status, workflow name and start time: what narrows the list (each change goes to the URL and back to page 1). */
export function JobFilters({ params, onChange, triggerName }: JobFiltersProps) {
  const workflow = useTypedFilter(params.workflow, (text) => onChange({ workflow: text, page: 1 }));
  const filtered = params.status || params.workflow || params.trigger || params.after || params.before;
  return (
    <form role="search" aria-label="Filter jobs" className={bar.filters} onSubmit={(e) => e.preventDefault()}>
      {params.trigger ? (
        <div className={bar.field}>
          <span className={bar.label} id="filter-trigger">
            Started by trigger
          </span>
          <span className={bar.chip} aria-labelledby="filter-trigger">
            {triggerName ?? params.trigger}
            <button
              type="button"
              className={bar.chipClear}
              aria-label="Show the jobs of every trigger"
              onClick={() => onChange({ trigger: '', page: 1 })}
            >
              ×
            </button>
          </span>
        </div>
      ) : null}
      <div className={bar.field}>
        <label htmlFor="filter-status">Status</label>
        <select id="filter-status" value={params.status} onChange={(e) => onChange({ status: e.target.value, page: 1 })}>
          <option value="">all</option>
          {JOB_STATUSES.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </select>
      </div>
      <TypedFilterField id="filter-workflow" label="Workflow" placeholder="name contains…" filter={workflow} />
      <div className={bar.field}>
        <label htmlFor="filter-after">Started after</label>
        <input
          id="filter-after"
          type="datetime-local"
          value={params.after}
          onChange={(e) => onChange({ after: e.target.value, page: 1 })}
        />
      </div>
      <div className={bar.field}>
        <label htmlFor="filter-before">Started before</label>
        <input
          id="filter-before"
          type="datetime-local"
          value={params.before}
          onChange={(e) => onChange({ before: e.target.value, page: 1 })}
          aria-invalid={emptyRange(params) || undefined}
          aria-describedby={emptyRange(params) ? 'filter-range-empty' : undefined}
        />
      </div>
      <button
        type="button"
        className="button"
        disabled={!filtered}
        onClick={() => {
          workflow.setTyped('');
          onChange({ status: '', workflow: '', trigger: '', after: '', before: '', page: 1 });
        }}
      >
        Clear filters
      </button>
      {emptyRange(params) ? (
        <p id="filter-range-empty" role="status" className={bar.warning}>
          “Started after” is later than “Started before”: no job can match. Change one of them.
        </p>
      ) : null}
    </form>
  );
}
