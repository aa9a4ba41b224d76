/**
 * Names of project members as people read them: a project's workflows are stored as
 * `@<project id>: <name>` (as the platform being replaced exports them); the console shows the
 * name and, beside it, the project's name. The rule itself is the platform's (`@nap/contracts`,
 * a pure module with no server code).
 */
export { memberName, plainName, projectOf } from '@nap/contracts/dist/project-members';
