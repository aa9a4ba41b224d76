import { useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { ApiError, problemWith } from '../../api/http';
import { people } from '../../api/people';
import type { AssignableRole, RoleName } from '../../api/people';
import { Dialog } from '../../components/dialog';
import { ErrorMessage } from '../../components/error-message';
import fieldStyles from '../../components/form-field.module.css';
import { FormActions } from '../../components/form-actions';
import { Field } from '../../components/form-field';
import { RoleChoices } from './form-parts';

type Problems = Partial<Record<'name' | 'description' | 'roles', string>>;

/** The platform's refusal at the field it names; undefined when it names none. */
function serverProblems(error: unknown): Problems | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.code === 'GROUP_ALREADY_EXISTS') return { name: `${error.message}: choose another name.` };
  if (error.code !== 'VALIDATION_FAILED') return undefined;
  const problems: Problems = {};
  const name = problemWith(error, 'body.group.name');
  const description = problemWith(error, 'body.group.description');
  const roles = problemWith(error, 'body.group.roles');
  if (name !== undefined) problems.name = `The name ${name}.`;
  if (description !== undefined) problems.description = `The description ${description}.`;
  if (roles !== undefined) problems.roles = `The roles ${roles}.`;
  return Object.keys(problems).length === 0 ? undefined : problems;
}

/** `New group`: a name, what it is for, and the roles its members hold (`POST /user-management/groups`). */
export function NewGroupDialog({
  roles,
  onClose,
  onCreated,
}: {
  roles: readonly AssignableRole[];
  onClose: () => void;
  onCreated: (created: { id: string | undefined; name: string }) => void;
}) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [chosen, setChosen] = useState<RoleName[]>([]);
  const [problems, setProblems] = useState<Problems>({});
  const nameRef = useRef<HTMLInputElement>(null);
  const create = useMutation({
    mutationFn: () =>
      people.createGroup({ name: name.trim(), ...(description.trim() !== '' ? { description: description.trim() } : {}), roles: chosen }),
    onSuccess: (answer) => onCreated({ id: answer.id, name: name.trim() }),
    onError: (error) => {
      const found = serverProblems(error) ?? {};
      setProblems(found);
      if (found.name !== undefined) nameRef.current?.focus();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim() === '') {
      create.reset();
      setProblems({ name: 'Type the name of the group.' });
      nameRef.current?.focus();
      return;
    }
    setProblems({});
    create.mutate();
  };
  const general = create.isError && serverProblems(create.error) === undefined ? create.error : undefined;
  return (
    <Dialog title="New group" onClose={onClose} initialFocus={nameRef} wide>
      <ErrorMessage error={general} title="The group was not created" />
      <form className={fieldStyles.form} onSubmit={submit} noValidate aria-busy={create.isPending}>
        <Field
          name="name"
          label="Name"
          value={name}
          onChange={(value) => {
            setName(value);
            setProblems(({ name: _changed, ...others }) => others);
          }}
          problem={problems.name}
          autoComplete="off"
          required
          inputRef={nameRef}
        />
        <Field
          name="description"
          label="Description"
          value={description}
          onChange={setDescription}
          problem={problems.description}
          hint="Who is in it, or what it is for: the network team, the NOC's night shift."
          autoComplete="off"
        />
        <RoleChoices legend="Roles its members hold" roles={roles} selected={chosen} onChange={setChosen} problem={problems.roles} />
        <FormActions action="Create group" pendingAction="Creating group…" pending={create.isPending} onCancel={onClose} />
      </form>
    </Dialog>
  );
}
