import { descriptionId, errorId, examplesId, helpId } from '@rjsf/utils';
import type { FieldPathId } from '@rjsf/utils';

/** What makes a control of a schema form say "invalid" and read its problem out, as form-field.tsx's Field does. */
export interface FieldAria {
  'aria-invalid': true | undefined;
  'aria-describedby': string;
}

/** True when the field has problems the form shows (a field hiding its errors shows none, so claims none). */
export function isInvalid(rawErrors: readonly unknown[] | undefined, hideError?: boolean): boolean {
  return hideError !== true && rawErrors !== undefined && rawErrors.length > 0;
}

/**
 * The ARIA of the control of the field `id`: invalid, and described first by its problem, while it has
 * one; then by its description and help (ids RJSF gives them), and its examples when it lists some.
 * The problem's id is left out while there is none, so nothing points at a sentence that is not there.
 */
export function fieldAria(id: FieldPathId | string, invalid: boolean, withExamples = false): FieldAria {
  const ids = [invalid ? errorId(id) : '', descriptionId(id), helpId(id), withExamples ? examplesId(id) : ''];
  return { 'aria-invalid': invalid ? true : undefined, 'aria-describedby': ids.filter(Boolean).join(' ') };
}
