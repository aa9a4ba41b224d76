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

/** The id of the label of a field drawn as a group (a fieldset's legend): RJSF's own `titleId` is its objects' titles'. */
export function labelId(id: FieldPathId | string): string {
  return `${typeof id === 'string' ? id : id.$id}__label`;
}

/** RJSF's id of the chooser of a field of alternatives, `<field>__oneof_select` (or `__anyof_`). */
const KIND_CHOOSER = /__(oneof|anyof)_select$/;

/** The id of the field whose kind the control `id` chooses, or undefined when `id` is no such chooser. */
export function kindChooserOf(id: string): string | undefined {
  return KIND_CHOOSER.test(id) ? id.replace(KIND_CHOOSER, '') : undefined;
}
