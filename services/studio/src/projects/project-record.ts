import type { Project } from '@nap/contracts';

/** A stored project: the project, and while an import runs, the components stored so far (its journal). */
export type ProjectRecord = Project & {
  /** Set while the import runs; a project left in this state by a crash is rolled back at the next start. */
  importing?: { startedAt: number };
};
