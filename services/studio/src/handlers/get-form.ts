import type { Handler } from '@nap/bus';
import { findForm } from '../context';
import type { StudioContext } from '../context';

/**
 * `GET /formbuilder/forms/:id` (addition): one form, found by its id, then by its name (a project
 * member's `@<project id>: <name>`, as exported manual triggers name their form), then by the `id`
 * other platforms give a form.
 */
export function getForm(svc: StudioContext): Handler<'studio.getForm'> {
  return async (input) => findForm(svc, input.params.id, input.caller);
}
