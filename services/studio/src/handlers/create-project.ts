import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import { stampOf } from '../context';
import type { StudioContext } from '../context';
import { refuseBlankProjectName } from '../domain/projects';
import type { ProjectRecord } from '../domain/projects';
import { addPlanned, answer, planAdd } from '../steps/project-components';

/**
 * `POST /automation-studio/projects`: a new project, empty or with copies of the documents its
 * components name (as components/add with mode copy), all or nothing. Answered 200, as the original
 * platform answers it.
 */
export function createProject(svc: StudioContext): Handler<'studio.createProject'> {
  return async (input, ctx) => {
    const { name, description = '', components = [] } = input.body;
    refuseBlankProjectName(name, 'body.name');
    if ((await svc.projects.findByName(name)) !== null) throw new AppError('PROJECT_ALREADY_EXISTS', `A project named "${name}" exists`);
    const stamp = stampOf(svc, input.caller);
    const record: ProjectRecord = {
      _id: svc.newId().replace(/-/g, '').slice(0, 24),
      name,
      description,
      folders: [],
      components: [],
      created: stamp.at,
      createdBy: stamp.by,
      lastUpdated: stamp.at,
      lastUpdatedBy: stamp.by,
    };
    const planned = await planAdd(svc, record, components, 'copy', input.caller, 'body.components');
    const locked = await svc.projects.insert({ ...record, changing: { startedAt: Date.now(), creating: true, undo: [] } });
    ctx.audit({ target: { kind: 'project', id: record._id, name } });
    const stored = planned.length === 0 ? await released(svc, locked) : await addPlanned(svc, locked, planned, input.caller, ctx);
    return answer(svc, stored, input.caller, `Created project "${stored.name}"`);
  };
}

/** A project created without components: its journal removed at once. */
async function released(svc: StudioContext, locked: ProjectRecord): Promise<ProjectRecord> {
  const { changing: _done, ...record } = locked;
  return svc.projects.replace(record);
}
