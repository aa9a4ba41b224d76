import { useEffect, useRef, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { people } from '../../api/people';
import type { Account, AssignableRole, Group, RoleName } from '../../api/people';
import { Dialog } from '../../components/dialog';
import { ErrorMessage } from '../../components/error-message';
import { useNow } from '../../hooks/use-now';
import { AccountStateBadge, RolesText, accountPath } from './account-parts';
import { FormActions } from '../../components/form-actions';
import { RoleChoices, SaveChangesForm } from './form-parts';
import { accountState, fullName, membersOf, sameMembers } from './people-data';
import { Notice, PeopleError, noticeState, useNotice } from './people-notice';
import { peopleKeys, useAllAccounts, useRefreshPeople, useRoles } from './people-queries';
import { PeopleBreadcrumbs } from './people-tabs';
import deviceStyles from '../devices/device-page.module.css';
import jobStyles from '../job/job-page.module.css';
import styles from './people.module.css';

/**
 * The group's roles as checkboxes with what each allows, saved with one button
 * (`PUT …/groups/:groupId/roles`); a refusal (no active admin left) changes nothing.
 */
function GroupRolesCard({
  group,
  roles,
  onSaved,
}: {
  group: Group;
  roles: readonly AssignableRole[];
  onSaved: (notice: string) => Promise<void>;
}) {
  const saved = group.roles ?? [];
  const [chosen, setChosen] = useState<RoleName[]>(saved);
  const save = useMutation({
    mutationFn: () => people.setGroupRoles(group._id ?? '', chosen),
    onSuccess: async (updated) => {
      const now = updated.roles ?? [];
      await onSaved(
        now.length === 0
          ? `Group “${group.name ?? ''}” gives no role now.`
          : `Roles of “${group.name ?? ''}” saved: its members hold ${now.join(', ')}.`,
      );
    },
  });
  const changed = !sameMembers(chosen, saved);
  return (
    <section aria-labelledby="group-roles-title" className={`card ${deviceStyles.card}`}>
      <div className={deviceStyles.cardHeader}>
        <h2 id="group-roles-title">Roles</h2>
      </div>
      <p className={deviceStyles.note}>
        Every account in the group holds these roles, in its open sessions too, as soon as they are saved.
      </p>
      <SaveChangesForm
        save={save}
        changed={changed}
        action="Save roles"
        pendingAction="Saving roles…"
        failedTitle="The roles were not changed"
        onUndo={() => setChosen(saved)}
      >
        <RoleChoices
          legend={`Roles of ${group.name ?? ''}`}
          roles={roles}
          selected={chosen}
          onChange={(next) => {
            setChosen(next);
            save.reset();
          }}
        />
      </SaveChangesForm>
    </section>
  );
}

/** The accounts in the group, each a link to its page, with its name and state. */
function MembersCard({ members, complete }: { members: readonly Account[]; complete: boolean }) {
  const now = useNow(true, 30_000);
  return (
    <section aria-labelledby="group-members-title" className={`card ${deviceStyles.card}`}>
      <div className={deviceStyles.cardHeader}>
        <h2 id="group-members-title">Members</h2>
      </div>
      {members.length === 0 ? (
        <p className={deviceStyles.note}>No account is in this group. Put one in it from the account’s page, under Groups.</p>
      ) : (
        <div className={deviceStyles.variablesWrap}>
          <table className={`table ${styles.members}`}>
            <caption className="visually-hidden">Members</caption>
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {members.map((account) => (
                <tr key={account._id}>
                  <td className={styles.who}>
                    <Link to={accountPath(account._id ?? '')}>{account.username}</Link>
                  </td>
                  <td>{fullName(account) || <span className="muted">—</span>}</td>
                  <td className={styles.tight}>
                    <AccountStateBadge state={accountState(account, now)} now={now} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {complete ? null : (
        <p className={deviceStyles.note}>The platform holds more accounts than one answer lists: some members may be missing.</p>
      )}
    </section>
  );
}

/** Confirms deleting a group, naming its members and the roles they lose with it. */
function DeleteGroupDialog({
  group,
  members,
  onClose,
  onDone,
}: {
  group: Group;
  members: readonly Account[];
  onClose: () => void;
  onDone: (notice: string) => void;
}) {
  const remove = useMutation({
    mutationFn: () => people.deleteGroup(group._id ?? ''),
    onSuccess: (answer) => onDone(`${answer.message}.`),
  });
  const roles = group.roles ?? [];
  const names = members.map((account) => account.username ?? '');
  return (
    <Dialog title={`Delete the group ${group.name ?? ''}?`} onClose={onClose}>
      <div className={styles.says}>
        {members.length === 0 ? (
          <p>No account is in it: nobody loses a role.</p>
        ) : (
          <p>
            {members.length === 1 ? 'Its member' : `Its ${members.length} members`} (<strong>{names.join(', ')}</strong>){' '}
            {members.length === 1 ? 'leaves it and loses' : 'leave it and lose'} the roles it gives
            {roles.length === 0 ? '' : ` (${roles.join(', ')})`}, unless another of their groups gives them.{' '}
            {members.length === 1 ? 'The account stays.' : 'Their accounts stay.'}
          </p>
        )}
        <p className="muted">Nothing brings the group back: a new group of the same name is another group.</p>
      </div>
      <ErrorMessage error={remove.error} title="The group was not deleted" />
      <FormActions
        action="Delete group"
        pendingAction="Deleting…"
        pending={remove.isPending}
        tone="danger"
        onAction={() => remove.mutate()}
        cancel="Keep group"
        onCancel={onClose}
      />
    </Dialog>
  );
}

/**
 * `/console/people/groups/<id>`: the group's roles (edited and saved), its members (the accounts
 * that name it), and Delete after a confirmation that names who loses what.
 */
export function GroupPage() {
  const { groupId = '' } = useParams();
  const group = useQuery({ queryKey: peopleKeys.group(groupId), queryFn: () => people.group(groupId) });
  const accounts = useAllAccounts();
  const roles = useRoles();
  const [notice, say] = useNotice();
  const [deleting, setDeleting] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const refresh = useRefreshPeople();
  const client = useQueryClient();
  const navigate = useNavigate();
  useEffect(() => {
    if (notice !== '' && (document.activeElement === null || document.activeElement === document.body)) heading.current?.focus();
  }, [notice]);
  if (group.isPending || accounts.isPending || roles.isPending) return <p className="page muted">Loading the group…</p>;
  if (group.isError || accounts.isError || roles.isError)
    return (
      <div className="page">
        <PeopleError error={group.error ?? accounts.error ?? roles.error} title="The group cannot be shown" />
        <Link to="/people/groups">Back to the groups</Link>
      </div>
    );
  const doc = group.data;
  const members = membersOf(groupId, accounts.data.results).sort((a, b) => (a.username ?? '').localeCompare(b.username ?? ''));
  const complete = (accounts.data.total ?? 0) <= accounts.data.results.length;
  const saved = async (text: string) => {
    await refresh();
    say(text);
  };
  return (
    <div className={`page ${jobStyles.page}`}>
      <PeopleBreadcrumbs list="Groups" to="/people/groups" here={doc.name ?? groupId} />
      <Notice text={notice} />
      <section aria-labelledby="group-title" className={jobStyles.summary}>
        <div className="stack">
          <h1 id="group-title" ref={heading} tabIndex={-1}>
            {doc.name}
          </h1>
          {doc.description ? <p className={styles.subtitle}>{doc.description}</p> : null}
          <dl className={jobStyles.facts}>
            <div>
              <dt>Roles</dt>
              <dd>
                <RolesText roles={doc.roles} />
              </dd>
            </div>
            <div>
              <dt>Members</dt>
              <dd>{complete ? members.length : `${members.length} or more`}</dd>
            </div>
            <div>
              <dt>Comes from</dt>
              <dd>{doc.provenance === undefined ? 'NAP' : <span className="mono">{doc.provenance}</span>}</dd>
            </div>
          </dl>
        </div>
        <div className={styles.summaryActions}>
          <button type="button" className="button button-danger" onClick={() => setDeleting(true)}>
            Delete
          </button>
        </div>
      </section>
      {doc.provenance === undefined ? null : (
        <p className={styles.aside}>
          This group comes from <span className="mono">{doc.provenance}</span>: who is in it follows the directory at each sign-in; its
          roles are NAP’s to give.
        </p>
      )}
      <div className={styles.columns}>
        <GroupRolesCard key={(doc.roles ?? []).join(',')} group={doc} roles={roles.data} onSaved={saved} />
        <MembersCard members={members} complete={complete} />
      </div>
      {deleting ? (
        <DeleteGroupDialog
          group={doc}
          members={members}
          onClose={() => setDeleting(false)}
          onDone={(text) => {
            setDeleting(false);
            client.removeQueries({ queryKey: peopleKeys.group(groupId) });
            void navigate('/people/groups', { state: noticeState(text) });
            void refresh();
          }}
        />
      ) : null}
    </div>
  );
}
