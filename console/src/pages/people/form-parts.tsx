import { useId } from 'react';
import type { ReactNode } from 'react';
import { isRoleName } from '../../api/people';
import type { AssignableRole, Group, RoleName } from '../../api/people';
import { ErrorMessage } from '../../components/error-message';
import { FormActions } from '../../components/form-actions';
import fieldStyles from '../../components/form-field.module.css';
import styles from './people.module.css';

/** Toggles one member of a list of choices. */
function toggled<T extends string>(selected: readonly T[], value: T, on: boolean): T[] {
  return on ? [...selected.filter((v) => v !== value), value] : selected.filter((v) => v !== value);
}

interface ChoicesProps<T extends string> {
  legend: string;
  options: readonly { value: T; label: string; note: string | undefined }[];
  selected: readonly T[];
  onChange: (selected: T[]) => void;
  /** What the fieldset says when there is nothing to choose. */
  none: string;
  problem?: string | undefined;
  disabled?: boolean;
}

/** Checkboxes in a fieldset, each with what choosing it means under its name (read out with it). */
function Choices<T extends string>({ legend, options, selected, onChange, none, problem, disabled }: ChoicesProps<T>) {
  const id = useId();
  return (
    <fieldset className={styles.choices} aria-invalid={problem ? true : undefined} aria-describedby={problem ? `${id}-problem` : undefined}>
      <legend>{legend}</legend>
      {options.length === 0 ? <p className="empty-note">{none}</p> : null}
      <ul className={styles.choiceList}>
        {options.map((option, index) => (
          <li key={option.value} className={styles.choice}>
            <input
              id={`${id}-${index}`}
              type="checkbox"
              checked={selected.includes(option.value)}
              disabled={disabled}
              onChange={(event) => onChange(toggled(selected, option.value, event.target.checked))}
              aria-describedby={option.note ? `${id}-${index}-note` : undefined}
            />
            <label htmlFor={`${id}-${index}`}>{option.label}</label>
            {option.note ? (
              <span id={`${id}-${index}-note`} className={styles.choiceNote}>
                {option.note}
              </span>
            ) : null}
          </li>
        ))}
      </ul>
      {problem ? (
        <p id={`${id}-problem`} className={`${fieldStyles.problem} ${styles.choiceProblem}`}>
          {problem}
        </p>
      ) : null}
    </fieldset>
  );
}

/** What a group gives, in a few words: its roles, its description, the directory it comes from. */
export function groupNote(group: Group): string {
  const roles = group.roles ?? [];
  return [
    roles.length === 0 ? 'gives no role' : `gives ${roles.join(', ')}`,
    group.description,
    group.provenance === undefined ? undefined : `from ${group.provenance}`,
  ]
    .filter((part) => part !== undefined && part !== '')
    .join(' · ');
}

/** The platform's groups as checkboxes, each with the roles it gives and its description. */
export function GroupChoices({
  groups,
  ...rest
}: { groups: readonly Group[] } & Omit<ChoicesProps<string>, 'options' | 'none'> & { none?: string }) {
  const options = groups.flatMap((group) =>
    group._id === undefined ? [] : [{ value: group._id, label: group.name ?? group._id, note: groupNote(group) }],
  );
  return <Choices {...rest} none={rest.none ?? 'There is no group yet: create one under Groups.'} options={options} />;
}

/** The roles a group can give as checkboxes, each with what it allows. */
export function RoleChoices({ roles, ...rest }: { roles: readonly AssignableRole[] } & Omit<ChoicesProps<RoleName>, 'options' | 'none'>) {
  const options = roles.flatMap(({ name, description }) => (isRoleName(name) ? [{ value: name, label: name, note: description }] : []));
  return <Choices {...rest} none="The platform names no role." options={options} />;
}

/**
 * A card's checkboxes saved together with one button; `Undo changes` puts them back as saved. A
 * refusal is shown above the buttons and changes nothing.
 */
export function SaveChangesForm({
  save,
  changed,
  action,
  pendingAction,
  failedTitle,
  onUndo,
  children,
}: {
  /** The mutation that saves them. */
  save: { mutate: () => void; reset: () => void; isPending: boolean; error: unknown };
  /** True when the boxes differ from what is saved: only then can they be saved or undone. */
  changed: boolean;
  action: string;
  pendingAction: string;
  failedTitle: string;
  /** Puts the boxes back as saved. */
  onUndo: () => void;
  children: ReactNode;
}) {
  return (
    <form
      className="stack"
      onSubmit={(event) => {
        event.preventDefault();
        if (changed) save.mutate();
      }}
    >
      {children}
      <ErrorMessage error={save.error} title={failedTitle} />
      <FormActions
        action={action}
        pendingAction={pendingAction}
        pending={save.isPending}
        disabled={!changed}
        cancel="Undo changes"
        cancelDisabled={!changed || save.isPending}
        onCancel={() => {
          onUndo();
          save.reset();
        }}
      />
    </form>
  );
}
