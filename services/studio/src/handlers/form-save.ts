import { AppError, UUID_V4_PATTERN, formInputSchema, validateAgainst } from '@nap/contracts';
import type { Caller } from '@nap/contracts';
import { assertAssignable } from '../domain/access';
import { toStoredForm } from '../domain/documents';
import type { NamedDoc } from '../store/documents';
import type { StudioDeps } from './deps';

const UUID_V4 = new RegExp(UUID_V4_PATTERN);

/**
 * Checks and stores a new form (formbuilder form or JSON form). Its `_id` is kept when it is a UUID
 * v4 (operation 19 exports forms by UUID v4) and made otherwise; an `id` member from another system
 * is kept as a member. 409 `FORM_ALREADY_EXISTS` when the name or id is taken.
 */
export async function createStoredForm(deps: StudioDeps, input: unknown, caller: Caller, member: string): Promise<NamedDoc> {
  const problems = validateAgainst(formInputSchema, input, member);
  if (problems.length > 0) {
    const name = (input as { name?: unknown } | null)?.name;
    throw new AppError('VALIDATION_FAILED', `The form "${typeof name === 'string' ? name : '(no name)'}" is not valid: ${problems.map((p) => p.message).join('; ')}`, { details: problems });
  }
  const form = input as Record<string, unknown> & { name: string; groups?: string[] };
  assertAssignable(caller, form.groups, 'form');
  const id = typeof form._id === 'string' && UUID_V4.test(form._id) ? form._id.toLowerCase() : deps.newId();
  return deps.forms.insert(toStoredForm(form, id, { by: caller.username, at: deps.now() }));
}
