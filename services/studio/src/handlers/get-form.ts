import type { Handler } from '@nap/bus';
import { assertAccess } from '../domain/access';
import type { StudioContext } from '../context';

/**
 * `GET /formbuilder/forms/:id` (addition): one form, found by its id, then by its name (a project
 * member's `@<project id>: <name>`, as exported manual triggers name their form), then by the `id`
 * other platforms give a form.
 */
export function getForm(svc: StudioContext): Handler<'studio.getForm'> {
  return async (input) => {
    const key = input.params.id;
    let form = await svc.forms.findByIdOrName(key);
    if (form === null) {
      const [byOwnId] = await svc.forms.scan({ id: { $eq: key } }, ['name']);
      form = byOwnId === undefined ? null : await svc.forms.findById(byOwnId._id);
    }
    if (form === null) throw svc.forms.notFound(key, 'id or name');
    assertAccess(input.caller, form, 'form', key);
    return form;
  };
}
