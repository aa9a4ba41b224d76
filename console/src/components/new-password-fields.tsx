import type { RefObject } from 'react';
import type { FieldForm, FieldProblems } from '../hooks/use-field-form';
import { Field } from './form-field';

/** What a form says when the two passwords typed differ. */
export const PASSWORDS_DIFFER = 'The two passwords differ: type the same password in both fields.';

/**
 * What the browser can tell of a new password typed twice: that there is one, and that the second
 * is the same. `fields` names the password's field, then the repeat's; the password rules are the
 * platform's to check.
 */
export function newPasswordProblems<V extends string>(
  values: Record<V, string>,
  [password, repeat]: readonly [V, V],
  missing: string,
  differ = PASSWORDS_DIFFER,
): FieldProblems<V> {
  const problems: FieldProblems<V> = {};
  if (values[password] === '') problems[password] = missing;
  else if (values[repeat] !== values[password]) problems[repeat] = differ;
  return problems;
}

interface NewPasswordFieldsProps<F extends string, V extends F> {
  /** The form the two fields belong to (`useFieldForm`). */
  form: FieldForm<F, V>;
  /** The password's field, then the repeat's. */
  fields: readonly [V, V];
  /** Their labels, in the same order. */
  labels: readonly [string, string];
  /** The password rules under the first, in the words of who sets them. */
  hint: string;
  /** Set when the password is the dialog's first field, which takes the focus. */
  inputRef?: RefObject<HTMLInputElement | null>;
}

/** A new password and the same typed again, as password managers expect them (`new-password`). */
export function NewPasswordFields<F extends string, V extends F>({
  form,
  fields: [password, repeat],
  labels: [passwordLabel, repeatLabel],
  hint,
  inputRef,
}: NewPasswordFieldsProps<F, V>) {
  return (
    <>
      <Field
        name={password}
        label={passwordLabel}
        type="password"
        value={form.values[password]}
        onChange={form.edit(password)}
        problem={form.problems[password]}
        hint={hint}
        autoComplete="new-password"
        required
        inputRef={inputRef}
      />
      <Field
        name={repeat}
        label={repeatLabel}
        type="password"
        value={form.values[repeat]}
        onChange={form.edit(repeat)}
        problem={form.problems[repeat]}
        autoComplete="new-password"
        required
      />
    </>
  );
}
