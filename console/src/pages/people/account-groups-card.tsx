import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { people } from '../../api/people';
import type { Account, Group } from '../../api/people';
import { GroupChoices, SaveChangesForm } from './form-parts';
import { rolesOf, sameMembers } from './people-data';
import deviceStyles from '../devices/device-page.module.css';
import styles from './people.module.css';

/**
 * The account's groups as checkboxes, saved together with one button
 * (`PUT …/accounts/:accountId/groups`). A refusal (the last active admin losing the role) is shown
 * in the card and changes nothing; `Undo changes` puts the checkboxes back as saved.
 */
export function AccountGroupsCard({
  account,
  groups,
  onSaved,
}: {
  account: Account;
  groups: readonly Group[];
  onSaved: (notice: string) => Promise<void>;
}) {
  const saved = account.groups ?? [];
  const [chosen, setChosen] = useState<string[]>(saved);
  const save = useMutation({
    mutationFn: () => people.setAccountGroups(account._id ?? '', chosen),
    onSuccess: async (updated) => {
      const names = groups
        .filter((group) => group._id !== undefined && (updated.groups ?? []).includes(group._id))
        .map((group) => group.name);
      await onSaved(
        names.length === 0
          ? `Account “${account.username ?? ''}” is in no group now: it holds no role.`
          : `Groups of “${account.username ?? ''}” saved: ${names.join(', ')}.`,
      );
    },
  });
  const changed = !sameMembers(chosen, saved);
  const roles = rolesOf(chosen, groups);
  return (
    <section aria-labelledby="account-groups-title" className={`card ${deviceStyles.card}`}>
      <div className={deviceStyles.cardHeader}>
        <h2 id="account-groups-title">Groups</h2>
      </div>
      <p className={deviceStyles.note}>
        An account holds the roles of its groups, no role of its own. A change applies at once, to its open sessions too.
        {account.provenance === undefined
          ? ''
          : ` Groups that ${account.provenance} brings in follow the directory at each sign-in; the others stay as set here.`}
      </p>
      <SaveChangesForm
        save={save}
        changed={changed}
        action="Save groups"
        pendingAction="Saving groups…"
        failedTitle="The groups were not changed"
        onUndo={() => setChosen(saved)}
      >
        <GroupChoices
          legend={`Groups of ${account.username ?? ''}`}
          groups={groups}
          selected={chosen}
          onChange={(next) => {
            setChosen(next);
            save.reset();
          }}
        />
        <p className={styles.aside} aria-live="polite">
          {roles.length === 0
            ? 'With these groups: no role (it can log in but may call nothing).'
            : `With these groups: ${roles.join(', ')}.`}
        </p>
      </SaveChangesForm>
    </section>
  );
}
