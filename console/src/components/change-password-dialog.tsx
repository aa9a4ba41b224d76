import { useRef } from 'react';
import type { RefObject } from 'react';
import { useMutation } from '@tanstack/react-query';
import { ApiError, problemWith } from '../api/http';
import { nap } from '../api/nap';
import { useFieldForm } from '../hooks/use-field-form';
import type { FieldProblems as Problems } from '../hooks/use-field-form';
import { useRetryAfter } from '../hooks/use-retry-after';
import { Dialog } from './dialog';
import { ErrorMessage } from './error-message';
import { FormActions } from './form-actions';
import { Field } from './form-field';
import styles from './form-field.module.css';
import { NewPasswordFields, newPasswordProblems } from './new-password-fields';

type Field = 'currentPassword' | 'newPassword' | 'repeatPassword';
type FieldProblems = Problems<Field>;

/** The fields in the order they come: the first with a problem takes the focus. */
const FIELDS: readonly Field[] = ['currentPassword', 'newPassword', 'repeatPassword'];

/** What the browser can tell without asking the platform; the password rules are the platform's to check. */
function localProblems(values: Record<Field, string>): FieldProblems {
  return {
    ...(values.currentPassword === '' ? { currentPassword: 'Type your current password.' } : {}),
    ...newPasswordProblems(
      values,
      ['newPassword', 'repeatPassword'],
      'Type a new password.',
      'The two new passwords differ: type the same new password in both fields.',
    ),
  };
}

/** The platform's refusal at the field it concerns; undefined when it concerns none (the dialog shows it above the fields). */
function serverProblems(error: unknown): FieldProblems | undefined {
  if (!(error instanceof ApiError)) return undefined;
  switch (error.code) {
    // a wrong current password counts as a failed login, and enough of them make the account wait
    case 'CURRENT_PASSWORD_WRONG':
    case 'LOGIN_THROTTLED':
      return { currentPassword: error.message };
    case 'VALIDATION_FAILED': {
      const problems: FieldProblems = {};
      const current = problemWith(error, 'body.currentPassword');
      const next = problemWith(error, 'body.newPassword');
      if (current !== undefined) problems.currentPassword = `The current password ${current}.`;
      if (next !== undefined) problems.newPassword = `The new password ${next}.`;
      return current === undefined && next === undefined ? undefined : problems;
    }
    default:
      return undefined;
  }
}

interface ChangePasswordDialogProps {
  /** The caller's username: password managers file the new password under it. */
  username: string | undefined;
  onClose: () => void;
  /** Called once the platform took the new password (the dialog is done). */
  onChanged: () => void;
  /** Where the focus goes when the dialog closes, when not back to the control that opened it (see Dialog). */
  returnFocus?: RefObject<HTMLElement | null>;
}

/**
 * `Change password`: the caller's own, given the current one (`PUT /whoami/password`). The browser
 * checks that both new ones match; the platform checks the current one and its password rules,
 * and each refusal is shown at the field it concerns, the first of them focused.
 */
export function ChangePasswordDialog({ username, onClose, onChanged, returnFocus }: ChangePasswordDialogProps) {
  const form = useFieldForm<Field, Field>({ currentPassword: '', newPassword: '', repeatPassword: '' }, FIELDS);
  const firstRef = useRef<HTMLInputElement>(null);
  const retry = useRetryAfter();
  const change = useMutation({
    mutationFn: () => nap.changeMyPassword(form.values.currentPassword, form.values.newPassword),
    onSuccess: () => onChanged(),
    onError: (error) => {
      retry.startFrom(error);
      form.show(serverProblems(error) ?? {});
    },
  });

  const general = change.isError && serverProblems(change.error) === undefined ? change.error : undefined;
  return (
    <Dialog title="Change password" onClose={onClose} initialFocus={firstRef} returnFocus={returnFocus}>
      <p className={styles.intro}>
        When your password changes, your other sessions (other browsers, tokens from logging in) are signed out; this one goes on.
      </p>
      <ErrorMessage error={general} title="The password was not changed" />
      <form
        ref={form.formRef}
        className={styles.form}
        onSubmit={form.submit(localProblems, change)}
        noValidate
        aria-busy={change.isPending}
      >
        {/* the account the new password is for, for password managers */}
        <input type="text" name="username" autoComplete="username" value={username ?? ''} readOnly hidden />
        <Field
          type="password"
          required
          name="currentPassword"
          label="Current password"
          autoComplete="current-password"
          value={form.values.currentPassword}
          onChange={form.edit('currentPassword')}
          problem={form.problems.currentPassword}
          inputRef={firstRef}
        />
        <NewPasswordFields
          form={form}
          fields={['newPassword', 'repeatPassword']}
          labels={['New password', 'Repeat new password']}
          hint="At least 12 characters, unless an administrator has set another minimum."
        />
        <FormActions
          action="Change password"
          pendingAction="Changing password…"
          pending={change.isPending}
          disabled={retry.waiting}
          onCancel={onClose}
        >
          {retry.waiting ? <span className="muted">You can try again in {retry.seconds} s.</span> : null}
        </FormActions>
      </form>
    </Dialog>
  );
}
