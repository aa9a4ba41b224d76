import { UUID_V4_PATTERN, formInputSchema, parseAs } from '@nap/contracts';
import type { Caller, StoredForm } from '@nap/contracts';
import { assertAssignable } from '../domain/access';
import { toStoredForm } from '../domain/documents';
import { checked } from './checked';
import type { StudioDeps } from './deps';

const UUID_V4 = new RegExp(UUID_V4_PATTERN);

/**
 * Checks and stores a new form (formbuilder form or JSON form). Its `_id` is kept when it is a UUID
 * v4 (operation 19 exports forms by UUID v4) and made otherwise; an `id` member from another system
 * is kept as a member. 409 `FORM_ALREADY_EXISTS` when the name or id is taken.
 */
export async function createStoredForm(deps: StudioDeps, input: unknown, caller: Caller, member: string): Promise<StoredForm> {
  const form = checked('form', input, () => parseAs(formInputSchema, input, member));
  assertAssignable(caller, form.groups, 'form');
  const id = form._id !== undefined && UUID_V4.test(form._id) ? form._id.toLowerCase() : deps.newId();
  return deps.forms.insert(toStoredForm(form, id, { by: caller.username, at: deps.now() }));
}
