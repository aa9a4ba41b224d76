import type { Handler } from '@nap/bus';
import { assertAccess } from '../domain/access';
import type { NamedDoc } from '../store/documents';
import type { StudioDeps } from './deps';

/** `GET /formbuilder/forms/:id` (addition): one form. */
export function getForm(deps: StudioDeps): Handler<unknown, { id: string }> {
  return async (input): Promise<NamedDoc> => {
    const form = await deps.forms.get(input.params.id);
    assertAccess(input.caller, form as { name: string; groups?: string[] }, 'form');
    return form;
  };
}
