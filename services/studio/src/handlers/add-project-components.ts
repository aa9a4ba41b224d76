import type { Handler } from '@nap/bus';
import type { StudioContext } from '../context';
import { assertNotChanging } from '../domain/project-components';
import { addPlanned, answer, journaled, planAdd } from '../steps/project-components';

/**
 * `POST /automation-studio/projects/:id/components/add`: existing documents added to a project,
 * moved in, copied, duplicated or taken in as made for it; all or nothing (see
 * domain/project-components.ts). Answered as `GET …/projects/:id` answers it.
 */
export function addProjectComponents(svc: StudioContext): Handler<'studio.addProjectComponents'> {
  return async (input, ctx) => {
    const record = await svc.projects.get(input.params.id);
    assertNotChanging(record, 'add components');
    const mode = input.body.mode ?? 'create';
    const planned = await planAdd(svc, record, input.body.components, mode, input.caller, 'body.components');
    const locked = await journaled(svc, record, { startedAt: Date.now(), undo: [] });
    const stored = await addPlanned(svc, locked, planned, input.caller, ctx);
    return answer(
      svc,
      stored,
      input.caller,
      `Added ${planned.length} ${planned.length === 1 ? 'component' : 'components'} to project "${stored.name}"`,
    );
  };
}
