import { useQueries } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { plainName, projectOf } from '../api/names';
import { nap } from '../api/nap';
import styles from './workflow-name.module.css';

/** How long a project's name is taken as known: projects are renamed rarely. */
const PROJECT_NAME_STALE_MS = 5 * 60_000;

/**
 * The names of the projects that `names` (stored workflow or job names) belong to, by project id:
 * one request per project (`GET /automation-studio/projects/:id`), shared by every row and page
 * that shows it. A project the caller may not read, or not found, is left out.
 */
export function useProjectNames(names: readonly string[]): ReadonlyMap<string, string> {
  const ids = [...new Set(names.map(projectOf).filter((id): id is string => id !== undefined))].sort();
  const answers = useQueries({
    queries: ids.map((id) => ({
      queryKey: ['project-name', id],
      queryFn: async () => (await nap.project(id)).name,
      staleTime: PROJECT_NAME_STALE_MS,
      retry: false,
    })),
  });
  const known = new Map<string, string>();
  ids.forEach((id, i) => {
    const name = answers[i]?.data;
    if (typeof name === 'string') known.set(id, name);
  });
  return known;
}

/**
 * A workflow's (or its job's) name as people read it: a project member's own name, then the
 * project it belongs to, muted (its name, or the end of its id while unknown). `children` wraps
 * the name (a link), so that a link's accessible name is the workflow's name alone.
 */
export function WorkflowName({
  name,
  projects,
  children,
}: {
  name: string;
  projects: ReadonlyMap<string, string>;
  children?: (plain: string) => ReactNode;
}) {
  const projectId = projectOf(name);
  const plain = plainName(name);
  return (
    <>
      {children ? children(plain) : plain}
      {projectId !== undefined ? (
        <span className={styles.project} title={`Project ${projects.get(projectId) ?? projectId} (${projectId}); stored as “${name}”`}>
          {projects.get(projectId) ?? `project …${projectId.slice(-6)}`}
        </span>
      ) : null}
    </>
  );
}
