import { useRef, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { ApiError, problemWith } from '../../api/http';
import { people } from '../../api/people';
import type { Account } from '../../api/people';
import { Dialog } from '../../components/dialog';
import { useFieldForm } from '../../hooks/use-field-form';
import { ErrorMessage } from '../../components/error-message';
import fieldStyles from '../../components/form-field.module.css';
import { FormActions } from '../../components/form-actions';
import { Field } from '../../components/form-field';
import { NewPasswordFields, newPasswordProblems } from '../../components/new-password-fields';
import { PASSWORD_HINT } from './new-account-dialog';
import styles from './people.module.css';

interface AccountDialogProps {
  account: Account;
  /** True when the account is the caller's own. */
  own: boolean;
  onClose: () => void;
  /** Called with what the page says once the platform has done it. */
  onDone: (notice: string) => void;
}

/** Confirms deactivating an account, saying what happens at once: its sessions end, it cannot log in. */
export function DeactivateDialog({ account, own, onClose, onDone }: AccountDialogProps) {
  const username = account.username ?? '';
  const deactivate = useMutation({
    mutationFn: () => people.updateAccount(account._id ?? '', { inactive: true }),
    onSuccess: () => onDone(`Account “${username}” is inactive: its sessions ended and it cannot log in.`),
  });
  return (
    <Dialog title={`Deactivate ${username}?`} onClose={onClose}>
      <div className={styles.says}>
        <p>Their sessions end now and they cannot log in, with a password or any sign-in method, until the account is reactivated.</p>
        <p className="muted">The account, its groups and its history stay; Reactivate lets them log in again.</p>
        {own ? (
          <p>
            <strong>This is your own account: you are signed out at once.</strong>
          </p>
        ) : null}
      </div>
      <ErrorMessage error={deactivate.error} title="The account was not deactivated" />
      <FormActions
        action="Deactivate"
        pendingAction="Deactivating…"
        pending={deactivate.isPending}
        tone="danger"
        onAction={() => deactivate.mutate()}
        cancel="Keep active"
        onCancel={onClose}
      />
    </Dialog>
  );
}

/**
 * Confirms deleting an account: the username must be typed, since nothing brings it back. The
 * platform refuses the caller's own account and the last active admin.
 */
export function DeleteAccountDialog({ account, onClose, onDone }: Omit<AccountDialogProps, 'own'>) {
  const username = account.username ?? '';
  const [typed, setTyped] = useState('');
  const inputRef = useRef<HTMLInputElement>(null);
  const remove = useMutation({
    mutationFn: () => people.deleteAccount(account._id ?? ''),
    onSuccess: (answer) => onDone(`${answer.message}.`),
  });
  const matches = typed.trim() === username;
  return (
    <Dialog title={`Delete ${username}?`} onClose={onClose} initialFocus={inputRef}>
      <div className={styles.says}>
        <p>
          The account <strong>{username}</strong> is deleted and its sessions end. Nothing brings it back: to let them log in again you
          would create a new account.
        </p>
        <p className="muted">To stop someone logging in for a while, Deactivate keeps the account instead.</p>
      </div>
      <form
        className={fieldStyles.form}
        onSubmit={(event) => {
          event.preventDefault();
          if (matches) remove.mutate();
        }}
      >
        <Field
          name="confirm"
          label={`Type ${username} to confirm`}
          value={typed}
          onChange={setTyped}
          problem={undefined}
          autoComplete="off"
          required
          inputRef={inputRef}
        />
        <ErrorMessage error={remove.error} title="The account was not deleted" />
        <FormActions
          action="Delete account"
          pendingAction="Deleting…"
          pending={remove.isPending}
          disabled={!matches}
          tone="danger"
          cancel="Keep account"
          onCancel={onClose}
        />
      </form>
    </Dialog>
  );
}

type PasswordField = 'password' | 'repeatPassword';
const PASSWORD_FIELDS = ['password', 'repeatPassword'] as const satisfies readonly PasswordField[];

/**
 * `Set password` of a NAP account: the new one typed twice (`PUT …/accounts/:accountId/password`).
 * The browser checks both match; the platform's password rules are shown at the field. Every
 * session of the account ends.
 */
export function SetPasswordDialog({ account, own, onClose, onDone }: AccountDialogProps) {
  const username = account.username ?? '';
  const form = useFieldForm<PasswordField, PasswordField>({ password: '', repeatPassword: '' }, PASSWORD_FIELDS);
  const firstRef = useRef<HTMLInputElement>(null);
  const set = useMutation({
    mutationFn: () => people.setAccountPassword(account._id ?? '', form.values.password),
    onSuccess: () => onDone(`Password of “${username}” set. Every session of the account ended: they log in with the new password.`),
    onError: (error) => {
      const problem = problemWith(error, 'body.password');
      if (problem !== undefined) form.show({ password: `The password ${problem}.` });
    },
  });
  const check = (values: Record<PasswordField, string>) => newPasswordProblems(values, PASSWORD_FIELDS, 'Type the new password.');
  const general =
    set.isError && !(set.error instanceof ApiError && problemWith(set.error, 'body.password') !== undefined) ? set.error : undefined;
  return (
    <Dialog title={`Set the password of ${username}`} onClose={onClose} initialFocus={firstRef}>
      <div className={styles.says}>
        <p>
          Every session of <strong>{username}</strong> ends when the password is set: browsers and tokens alike. Tell them the new password
          the way your team shares secrets; they can change it with Change password once logged in.
        </p>
        {own ? (
          <p>
            <strong>This is your own account: you are signed out and log in again with the new password.</strong>
          </p>
        ) : null}
      </div>
      <ErrorMessage error={general} title="The password was not set" />
      <form ref={form.formRef} className={fieldStyles.form} onSubmit={form.submit(check, set)} noValidate aria-busy={set.isPending}>
        <input type="text" name="username" autoComplete="username" value={username} readOnly hidden />
        <NewPasswordFields
          form={form}
          fields={PASSWORD_FIELDS}
          labels={['New password', 'Repeat the new password']}
          hint={PASSWORD_HINT}
          inputRef={firstRef}
        />
        <FormActions action="Set password" pendingAction="Setting password…" pending={set.isPending} onCancel={onClose} />
      </form>
    </Dialog>
  );
}
