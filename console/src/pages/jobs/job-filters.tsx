import { JOB_STATUSES } from '../../api/job-data';
import { FilterFold, setCount } from '../../components/filter-fold';
import { TimeFilterField, useTimeFilter } from '../../components/time-filter';
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

/**
 * Status, workflow name and start time (typed as the console writes times): what narrows the list
 * (each change goes to the URL and back to page 1).
 */
export function JobFilters({ params, onChange, triggerName }: JobFiltersProps) {
  const workflow = useTypedFilter(params.workflow, (text) => onChange({ workflow: text, page: 1 }));
  const after = useTimeFilter(params.after, (value) => onChange({ after: value, page: 1 }));
  const before = useTimeFilter(params.before, (value) => onChange({ before: value, page: 1 }));
  // text typed in a time box that is not a time is something to clear too
  const filtered = params.status || params.workflow || params.trigger || params.after || params.before || after.typed || before.typed;
  return (
    <FilterFold count={setCount([params.status, params.workflow, params.trigger, params.after, params.before])}>
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
        <TimeFilterField id="filter-after" label="Started after" filter={after} />
        <TimeFilterField
          id="filter-before"
          label="Started before"
          filter={before}
          invalid={emptyRange(params)}
          describedBy={emptyRange(params) ? 'filter-range-empty' : undefined}
        />
        <button
          type="button"
          className="button"
          disabled={!filtered}
          onClick={() => {
            workflow.setTyped('');
            after.setTyped('');
            before.setTyped('');
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
    </FilterFold>
  );
}
