/**
 * Names of project members. A project's workflows, transformations and templates are stored under
 * `@<project id>: <name>` (as the platform being replaced exports them), which keeps the names that
 * recur across projects apart. Pure.
 */

const MEMBER = /^@([^:\s]+): (.+)$/s;

/** The project id of a member's stored name; undefined for a name outside any project. */
export function projectOf(storedName: string): string | undefined {
  return MEMBER.exec(storedName)?.[1];
}

/** The name a member has inside its project (the stored name without `@<project id>: `); a name outside any project as it is. */
export function plainName(storedName: string): string {
  return MEMBER.exec(storedName)?.[2] ?? storedName;
}

/** The stored name of a project member. */
export function memberName(projectId: string, name: string): string {
  return `@${projectId}: ${name}`;
}

/**
 * The stored names a reference may mean, in the order they are tried. A reference made inside a
 * project (`from`, the stored name of the document that makes it, is a project member) by a plain
 * name means that project's member of the name first, then the document of that plain name outside
 * any project: a project keeps working on its own, whatever else is installed, the way a name
 * resolves in the nearest scope first. A full member name, or a reference from outside any project,
 * means exactly the name given.
 */
export function candidateNames(named: string, from?: string): string[] {
  const project = from === undefined ? undefined : projectOf(from);
  if (project === undefined || projectOf(named) !== undefined) return [named];
  return [memberName(project, named), named];
}
