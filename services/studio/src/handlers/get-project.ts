import type { Handler } from '@nap/bus';
import { componentKinds } from '../context';
import type { StudioContext } from '../context';
import { withoutJournals } from '../domain/project-components';
import { goneNote, visibleToCaller } from '../domain/projects';

/**
 * `GET /automation-studio/projects/:id`: the project with its components as they stand now (under
 * their names now, those deleted through their own routes left out and named in
 * `metadata.componentsGone` and `metadata.note`); the workflows and forms shared with groups the
 * caller is in none of are left out too, and `metadata.componentsLeftOut` says how many.
 */
export function getProject(svc: StudioContext): Handler<'studio.getProject'> {
  return async (input) => {
    const stored = withoutJournals(await svc.projects.get(input.params.id));
    const [seen] = await visibleToCaller(componentKinds(svc), [stored], input.caller);
    const { project, left, gone } = seen ?? { project: stored, left: 0, gone: [] };
    return {
      message: 'Successfully retrieved item',
      data: project,
      metadata: { ...(left > 0 ? { componentsLeftOut: left } : {}), ...goneNote(gone, input.caller) },
    };
  };
}
