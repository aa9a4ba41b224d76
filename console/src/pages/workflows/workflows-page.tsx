import { useEffect, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { formatTime } from '../../api/job-data';
import { nap } from '../../api/nap';
import { ErrorMessage } from '../../components/error-message';
import { WorkflowName, useProjectNames } from '../../components/workflow-name';
import { useDebounced } from '../../hooks/use-debounced';

const PAGE_SIZE = 50;

/** `/console/workflows`: the workflow documents, filtered by name and paged by the platform. */
export function WorkflowsPage() {
  const [search, setSearch] = useSearchParams();
  const name = search.get('name') ?? '';
  const page = Math.max(1, Number(search.get('page')) || 1);
  const [typed, setTyped] = useState(name);
  const settled = useDebounced(typed, 300);
  useEffect(() => {
    if (settled === name) return;
    const next = new URLSearchParams();
    if (settled) next.set('name', settled);
    setSearch(next);
    // only the typed text decides
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [settled]);
  const query = { limit: PAGE_SIZE, skip: (page - 1) * PAGE_SIZE, sort: 'name', order: 1, contains: name ? { name } : undefined };
  const workflows = useQuery({ queryKey: ['workflows', query], queryFn: () => nap.workflows(query), placeholderData: keepPreviousData });
  const items = workflows.data?.items ?? [];
  const total = workflows.data?.total ?? 0;
  const projects = useProjectNames(items.map((w) => w.name));
  // a column only when some workflow of the page has a description
  const described = items.some((w) => typeof w.description === 'string' && w.description.trim() !== '');
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const go = (to: number) => {
    const next = new URLSearchParams(search);
    if (to === 1) next.delete('page');
    else next.set('page', String(to));
    setSearch(next);
  };
  return (
    <div className="page">
      <div className="page-header">
        <h1>Workflows</h1>
        <span className="muted">{workflows.isSuccess ? `${total} workflow${total === 1 ? '' : 's'}` : ''}</span>
      </div>
      <form role="search" aria-label="Filter workflows" className="row" onSubmit={(e) => e.preventDefault()}>
        <label htmlFor="workflow-name">Workflow</label>
        <input id="workflow-name" type="search" placeholder="name contains…" value={typed} onChange={(e) => setTyped(e.target.value)} />
      </form>
      <ErrorMessage error={workflows.error} title="The workflows cannot be listed" />
      <div className="card table-card">
        <table className="table">
          <caption className="visually-hidden">Workflows</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              {described ? <th scope="col">Description</th> : null}
              <th scope="col">Tasks</th>
              <th scope="col">Last changed</th>
              <th scope="col">Changed by</th>
            </tr>
          </thead>
          <tbody>
            {items.map((workflow) => (
              <tr key={String(workflow._id ?? workflow.name)}>
                <td>
                  <WorkflowName name={workflow.name} projects={projects}>
                    {(plain) => <Link to={`/workflows/${encodeURIComponent(workflow.name)}`}>{plain}</Link>}
                  </WorkflowName>
                </td>
                {described ? <td className="muted">{typeof workflow.description === 'string' ? workflow.description : ''}</td> : null}
                <td>{Math.max(0, Object.keys(workflow.tasks ?? {}).length - 2)}</td>
                <td className="nowrap">
                  {typeof workflow.last_updated === 'string' ? formatTime(Date.parse(workflow.last_updated)) : '—'}
                </td>
                <td>{typeof workflow.last_updated_by === 'string' ? workflow.last_updated_by : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {workflows.isSuccess && items.length === 0 ? <p className="empty-note">No workflow matches.</p> : null}
      </div>
      <nav aria-label="Pages of workflows" className="row">
        <button type="button" className="button" disabled={page <= 1} onClick={() => go(page - 1)}>
          Previous page
        </button>
        <span>
          Page {page} of {pages}
        </span>
        <button type="button" className="button" disabled={page >= pages} onClick={() => go(page + 1)}>
          Next page
        </button>
      </nav>
    </div>
  );
}
