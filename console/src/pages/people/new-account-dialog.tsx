import { useRef, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { ApiError, problemWith } from '../../api/http';
import { people } from '../../api/people';
import type { Account, Group } from '../../api/people';
import { Dialog } from '../../components/dialog';
import { useFieldForm } from '../../hooks/use-field-form';
import { ErrorMessage } from '../../components/error-message';
import fieldStyles from '../../components/form-field.module.css';
import { FormActions } from '../../components/form-actions';
import { Field } from '../../components/form-field';
import { NewPasswordFields, newPasswordProblems } from '../../components/new-password-fields';
import { GroupChoices } from './form-parts';
import { rolesOf } from './people-data';
import styles from './people.module.css';

type TextField = 'username' | 'firstname' | 'lastname' | 'email' | 'password' | 'repeatPassword';
type Problems = Partial<Record<TextField | 'groups', string>>;

/** The fields in the order they come: the first with a problem takes the focus. */
const FIELDS: readonly (TextField | 'groups')[] = ['username', 'firstname', 'lastname', 'email', 'groups', 'password', 'repeatPassword'];

/** The groups are checkboxes, not one input: their problem focuses the first box. */
function firstGroupBox(form: HTMLFormElement, field: TextField | 'groups'): HTMLElement | null {
  return field === 'groups' ? form.querySelector<HTMLInputElement>('fieldset input[type="checkbox"]') : null;
}

/** The password hint: the platform's rules are the active profile's. */
export const PASSWORD_HINT = 'At least 12 characters, unless the active profile sets another minimum.';

/** What the browser can tell without asking the platform: a username, a password typed the same twice. */
function localProblems(values: Record<TextField, string>): Problems {
  return {
    ...(values.username.trim() === '' ? { username: 'Type the username they will log in with.' } : {}),
    ...newPasswordProblems(values, ['password', 'repeatPassword'], 'Type an initial password.'),
  };
}

/** The platform's refusal at the field it names; undefined when it names none (the dialog shows it above the fields). */
function serverProblems(error: unknown): Problems | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.code === 'ACCOUNT_ALREADY_EXISTS') return { username: `${error.message}: choose another username.` };
  if (error.code !== 'VALIDATION_FAILED') return undefined;
  const problems: Problems = {};
  const said = (field: TextField | 'groups', words: string) => {
    const problem = problemWith(error, `body.account.${field}`);
    if (problem !== undefined) problems[field] = `${words} ${problem}.`;
  };
  said('username', 'The username');
  said('firstname', 'The first name');
  said('lastname', 'The last name');
  said('email', 'The email');
  said('groups', 'The groups:');
  said('password', 'The password');
  return Object.keys(problems).length === 0 ? undefined : problems;
}

/**
 * `New account`: a username, the person's names and email, their groups, and an initial password
 * typed twice (`POST /user-management/accounts`). The browser checks the two passwords match; the
 * platform checks the rest, and each refusal is shown at the field it names, the first focused.
 */
export function NewAccountDialog({
  groups,
  onClose,
  onCreated,
}: {
  groups: readonly Group[];
  onClose: () => void;
  onCreated: (account: Account) => void;
}) {
  const form = useFieldForm<TextField | 'groups', TextField>(
    { username: '', firstname: '', lastname: '', email: '', password: '', repeatPassword: '' },
    FIELDS,
    firstGroupBox,
  );
  const [chosen, setChosen] = useState<string[]>([]);
  const firstRef = useRef<HTMLInputElement>(null);
  const { values, problems, edit } = form;
  const create = useMutation({
    mutationFn: () => {
      const optional = (value: string) => (value.trim() === '' ? undefined : value.trim());
      const firstname = optional(values.firstname);
      const lastname = optional(values.lastname);
      const email = optional(values.email);
      return people.createAccount({
        username: values.username.trim(),
        password: values.password,
        ...(firstname !== undefined ? { firstname } : {}),
        ...(lastname !== undefined ? { lastname } : {}),
        ...(email !== undefined ? { email } : {}),
        groups: chosen,
      });
    },
    onSuccess: (account) => onCreated(account),
    onError: (error) => form.show(serverProblems(error) ?? {}),
  });

  const general = create.isError && serverProblems(create.error) === undefined ? create.error : undefined;
  const roles = rolesOf(chosen, groups);
  return (
    <Dialog title="New account" onClose={onClose} initialFocus={firstRef} wide>
      <ErrorMessage error={general} title="The account was not created" />
      <form
        ref={form.formRef}
        className={fieldStyles.form}
        onSubmit={form.submit(localProblems, create)}
        noValidate
        aria-busy={create.isPending}
      >
        <Field
          name="username"
          label="Username"
          value={values.username}
          onChange={edit('username')}
          problem={problems.username}
          autoComplete="off"
          required
          inputRef={firstRef}
        />
        <div className={styles.pair}>
          <Field
            name="firstname"
            label="First name"
            value={values.firstname}
            onChange={edit('firstname')}
            problem={problems.firstname}
            autoComplete="off"
          />
          <Field
            name="lastname"
            label="Last name"
            value={values.lastname}
            onChange={edit('lastname')}
            problem={problems.lastname}
            autoComplete="off"
          />
        </div>
        <Field
          name="email"
          label="Email"
          type="email"
          value={values.email}
          onChange={edit('email')}
          problem={problems.email}
          autoComplete="off"
        />
        <GroupChoices
          legend="Groups"
          groups={groups}
          selected={chosen}
          onChange={(next) => {
            setChosen(next);
            form.forget('groups');
          }}
          problem={problems.groups}
        />
        <p className={styles.aside} aria-live="polite">
          {roles.length === 0
            ? 'With these groups the account holds no role: it can log in but may call nothing.'
            : `With these groups the account holds: ${roles.join(', ')}.`}
        </p>
        <NewPasswordFields
          form={form}
          fields={['password', 'repeatPassword']}
          labels={['Initial password', 'Repeat the password']}
          hint={PASSWORD_HINT}
        />
        <FormActions action="Create account" pendingAction="Creating account…" pending={create.isPending} onCancel={onClose} />
      </form>
    </Dialog>
  );
}
