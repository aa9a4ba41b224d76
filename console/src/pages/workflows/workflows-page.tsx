import { Fragment, Suspense, lazy, useEffect, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ApiError } from '../../api/http';
import { formatTime } from '../../api/job-data';
import { memberName, plainName, projectOf } from '../../api/names';
import { nap } from '../../api/nap';
import type { Workflow } from '../../api/nap';
import { Dialog } from '../../components/dialog';
import { ErrorMessage } from '../../components/error-message';
import { FilterFold, setCount } from '../../components/filter-fold';
import { useProjectNames } from '../../components/workflow-name';
import { TypedFilterField, useTypedFilter } from '../../components/typed-filter';
import { usePageClamp } from '../../hooks/use-page-clamp';
import { draftKeys, peekDraft, settleDraft } from '../../session/drafts';
import { usePermissions } from '../../session/session';
import type { RunDraft } from './run-workflow-dialog';
import bar from '../../components/filter-bar.module.css';
import pager from '../../components/pager.module.css';
import styles from './workflows-page.module.css';
import { useUrlSearch } from '../../hooks/use-url-search';

const PAGE_SIZE = 50;

// the form renderer is loaded with the first Run, not with the list
const RunWorkflowDialog = lazy(async () => ({ default: (await import('./run-workflow-dialog')).RunWorkflowDialog }));

/** Every project, by name (the platform sorts them): the Project filter's choices. */
function useProjects() {
  return useQuery({
    queryKey: ['projects'],
    queryFn: async () => (await nap.projects({ limit: 500, sort: 'name', order: 1 })).data,
    staleTime: 5 * 60_000,
  });
}

/**
 * The Run dialog of the workflow the list's `run` parameter names (its row's Run, or a link): the
 * list's document when the page shows it, else read by name. What the person wrote before their
 * session ended comes back with it, as on the workflow's page (the log-in returns to this URL).
 */
function RunFromList({ name, listed, onClose }: { name: string; listed: Workflow | undefined; onClose: () => void }) {
  const { whoami } = usePermissions();
  const [draft] = useState(() => peekDraft<RunDraft>(draftKeys.runWorkflow(name), whoami?.username));
  useEffect(() => {
    if (draft) settleDraft(draftKeys.runWorkflow(name));
  }, [draft, name]);
  const workflow = useQuery({
    queryKey: ['workflow', name],
    queryFn: async () => {
      const found = (await nap.workflows({ equals: { name }, limit: 1 })).items[0];
      if (!found) throw new ApiError(404, 'WORKFLOW_NOT_FOUND', `No workflow is named “${plainName(name)}”`);
      return found;
    },
    enabled: listed === undefined,
  });
  const doc = listed ?? workflow.data;
  if (workflow.isError && !doc)
    return (
      <Dialog title={`Run ${plainName(name)}`} onClose={onClose}>
        <ErrorMessage error={workflow.error} title="The workflow cannot be run" />
      </Dialog>
    );
  if (!doc) return <p className="muted">Loading the workflow…</p>;
  return (
    <Suspense fallback={<p className="muted">Loading the form…</p>}>
      <RunWorkflowDialog workflow={doc} draft={draft} onClose={onClose} />
    </Suspense>
  );
}

/**
 * `/console/workflows`: the workflow documents, filtered by name and by project, and paged by the
 * platform. The platform sorts them by their stored name, in which a project's workflows are
 * `@<project id>: <name>`: a project's workflows come together, A–Z by their own name, under a
 * line naming the project; the Project filter lists one project's alone. A caller who may start
 * jobs runs a workflow from its row (the dialog of the workflow's page; `run` in the URL names it).
 */
export function WorkflowsPage() {
  const [search, editSearch] = useUrlSearch();
  const name = search.get('name') ?? '';
  const project = search.get('project') ?? '';
  const running = search.get('run') ?? '';
  const { may } = usePermissions();
  const mayRun = may('workflow.startJob');
  const page = Math.max(1, Math.floor(Number(search.get('page'))) || 1);
  const nameFilter = useTypedFilter(name, (text) =>
    editSearch((next) => {
      next.delete('page');
      if (text) next.set('name', text);
      else next.delete('name');
    }),
  );
  const projects = useProjects();
  const query = {
    limit: PAGE_SIZE,
    skip: (page - 1) * PAGE_SIZE,
    sort: 'name',
    order: 1,
    contains: name ? { name } : undefined,
    // a project's workflows are stored as `@<project id>: <name>`
    startsWith: project ? { name: memberName(project, '') } : undefined,
  };
  const workflows = useQuery({ queryKey: ['workflows', query], queryFn: () => nap.workflows(query), placeholderData: keepPreviousData });
  const items = workflows.data?.items ?? [];
  const total = workflows.data?.total ?? 0;
  const names = useProjectNames(items.map((w) => w.name));
  // a column only when some workflow of the page has a description
  const described = items.some((w) => typeof w.description === 'string' && w.description.trim() !== '');
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const columns = (described ? 5 : 4) + (mayRun ? 1 : 0);
  const run = (workflowName: string) => {
    editSearch(
      (next) => {
        if (workflowName) next.set('run', workflowName);
        else next.delete('run');
        // opening or closing the dialog is no page of the browser's history
      },
      { replace: true },
    );
  };
  const go = (to: number) => {
    editSearch((next) => {
      if (to === 1) next.delete('page');
      else next.set('page', String(to));
    });
  };
  const choose = (id: string) => {
    editSearch((next) => {
      next.delete('page');
      if (id) next.set('project', id);
      else next.delete('project');
    });
  };
  // a page past the end (a stale link) is the last page
  usePageClamp(
    page,
    workflows.data && !workflows.isPlaceholderData ? { total, limit: PAGE_SIZE, count: items.length } : undefined,
    (last) => {
      editSearch(
        (next) => {
          if (last === 1) next.delete('page');
          else next.set('page', String(last));
        },
        { replace: true },
      );
    },
  );
  const projectName = (id: string | undefined) =>
    id === undefined ? 'Not in a project' : (names.get(id) ?? projects.data?.find((p) => p._id === id)?.name ?? `project …${id.slice(-6)}`);
  return (
    <div className="page">
      <div className="page-header">
        <h1>Workflows</h1>
        <span className="muted">{workflows.isSuccess ? `${total} workflow${total === 1 ? '' : 's'}` : ''}</span>
      </div>
      <FilterFold count={setCount([name, project])}>
        <form role="search" aria-label="Filter workflows" className={bar.filters} onSubmit={(e) => e.preventDefault()}>
          <TypedFilterField id="workflow-name" label="Workflow" placeholder="name contains…" filter={nameFilter} />
          <div className={bar.field}>
            <label htmlFor="workflow-project">Project</label>
            <select id="workflow-project" value={project} onChange={(e) => choose(e.target.value)}>
              <option value="">every workflow</option>
              {(projects.data ?? []).map((p) => (
                <option key={p._id} value={p._id}>
                  {p.name}
                </option>
              ))}
              {project && projects.isSuccess && !projects.data.some((p) => p._id === project) ? (
                <option value={project}>project …{project.slice(-6)}</option>
              ) : null}
            </select>
          </div>
          <button
            type="button"
            className="button"
            disabled={!name && !project}
            onClick={() => {
              nameFilter.setTyped('');
              editSearch((next) => {
                next.delete('page');
                next.delete('name');
                next.delete('project');
              });
            }}
          >
            Clear filters
          </button>
          <p className={styles.order}>
            {project
              ? 'A–Z by name.'
              : 'A project’s workflows are listed together, A–Z by name, under the project’s name; choose a project to list its own alone.'}
          </p>
        </form>
      </FilterFold>
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
              {mayRun ? (
                <th scope="col" className={styles.actions}>
                  <span className="visually-hidden">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {items.map((workflow, i) => {
              const id = projectOf(workflow.name);
              const previous = i === 0 ? null : projectOf(items[i - 1]?.name ?? '');
              // a line naming the project where its workflows begin (and atop every page), unless one project is chosen
              const heading =
                !project && (i === 0 ? id !== undefined || items.some((w) => projectOf(w.name) !== undefined) : previous !== id);
              return (
                <Fragment key={String(workflow._id ?? workflow.name)}>
                  {heading ? (
                    <tr className={styles.group}>
                      <th scope="colgroup" colSpan={columns}>
                        {projectName(id)}
                      </th>
                    </tr>
                  ) : null}
                  <tr>
                    <td className={styles.name}>
                      {/* the line above the project's workflows (or the Project filter) names the project: not again on each row */}
                      <Link to={`/workflows/${encodeURIComponent(workflow.name)}`}>{plainName(workflow.name)}</Link>
                    </td>
                    {described ? (
                      <td className={`muted ${styles.description}`}>
                        <div className="cell-text">{typeof workflow.description === 'string' ? workflow.description : ''}</div>
                      </td>
                    ) : null}
                    <td>{Math.max(0, Object.keys(workflow.tasks ?? {}).length - 2)}</td>
                    <td className="nowrap">
                      {typeof workflow.last_updated === 'string' ? formatTime(Date.parse(workflow.last_updated)) : '—'}
                    </td>
                    <td>{typeof workflow.last_updated_by === 'string' ? workflow.last_updated_by : '—'}</td>
                    {mayRun ? (
                      <td className={styles.actions}>
                        <button
                          type="button"
                          className="button"
                          aria-label={`Run ${plainName(workflow.name)}`}
                          aria-haspopup="dialog"
                          onClick={() => run(workflow.name)}
                        >
                          Run
                        </button>
                      </td>
                    ) : null}
                  </tr>
                </Fragment>
              );
            })}
          </tbody>
        </table>
        {workflows.isSuccess && items.length === 0 ? (
          name || project ? (
            <p className="empty-note">No workflow matches these filters. Change them, or Clear filters to list every workflow.</p>
          ) : (
            <p className="empty-note">
              No workflow yet. Import workflows exported from another platform with <code>nap import workflow FILE</code> (a whole project
              with <code>nap import project FILE</code>), or create one with <code>POST /automation-studio/automations</code> (
              <a href="/docs">API documentation</a>).
            </p>
          )
        ) : null}
        {workflows.isPending ? <p className="empty-note">Loading workflows…</p> : null}
      </div>
      {/* laid out as the other lists' pager: the rows on screen on the left, the pages on the right */}
      <nav aria-label="Pages of workflows" className={pager.pager}>
        <span>
          {workflows.isSuccess && items.length > 0
            ? `${(Math.min(page, pages) - 1) * PAGE_SIZE + 1}–${(Math.min(page, pages) - 1) * PAGE_SIZE + items.length} of ${total} workflow${total === 1 ? '' : 's'}`
            : ''}
        </span>
        <div className="row">
          <button type="button" className="button" disabled={page <= 1} onClick={() => go(page - 1)}>
            Previous page
          </button>
          <span>
            Page {Math.min(page, pages)} of {pages}
          </span>
          <button type="button" className="button" disabled={page >= pages} onClick={() => go(page + 1)}>
            Next page
          </button>
        </div>
      </nav>
      {mayRun && running ? (
        <RunFromList key={running} name={running} listed={items.find((w) => w.name === running)} onClose={() => run('')} />
      ) : null}
    </div>
  );
}
