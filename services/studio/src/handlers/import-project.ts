import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import { componentKinds, rollBackImport } from '../context';
import type { StudioContext } from '../context';
import {
  finishedProject,
  forComponent,
  importingRecord,
  kindOf,
  planComponents,
  projectIdOf,
  refuseBlankProjectName,
  refuseUnsupported,
  storedComponent,
} from '../domain/projects';

/**
 * `POST /automation-studio/projects/import`: every component through its owning service, all or
 * nothing. Every component is checked before any is written; the project record is the journal of
 * what was stored, deleted again when a component fails (and at the next start after a crash).
 */
export function importProject(svc: StudioContext): Handler<'studio.importProject'> {
  return async (input) => {
    const { project } = input.body;
    const { caller } = input;
    const kinds = componentKinds(svc);
    refuseBlankProjectName(project.name, 'body.project.name');
    const id = projectIdOf(project, svc.newId());
    refuseUnsupported(project.components, kinds);
    if ((await svc.projects.findById(id)) !== null)
      throw new AppError('PROJECT_ALREADY_EXISTS', `A project with id "${id}" exists; delete it first to import it again`);
    if ((await svc.projects.findByName(project.name)) !== null)
      throw new AppError('PROJECT_ALREADY_EXISTS', `A project named "${project.name}" exists`);

    const planned = planComponents(id, project.components);
    for (const p of planned) await forComponent(p, () => kindOf(kinds, p.component.type).check(p.doc, p.member, caller));

    const record = importingRecord(id, project, caller.username, svc.now(), Date.now());
    await svc.projects.insert(record);
    try {
      for (const p of planned) {
        const reference = await forComponent(p, () => kindOf(kinds, p.component.type).create(p.doc, p.member, caller));
        record.components.push(storedComponent(p, reference));
        await svc.projects.replace(record);
      }
    } catch (err) {
      await rollBackImport(svc, record, caller);
      throw err;
    }
    const done = await svc.projects.replace(finishedProject(record));
    return { message: `Imported project "${done.name}" with ${done.components.length} components`, data: done, metadata: {} };
  };
}
