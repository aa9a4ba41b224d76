import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import type { Account, Group } from '../../api/people';
import frame from '../../components/list-frame.module.css';
import { RolesText, groupPath } from './account-parts';
import { NewGroupDialog } from './new-group-dialog';
import { membersOf } from './people-data';
import { ForbiddenPage, Notice, PeopleError, isForbidden, noticeState, useNotice } from './people-notice';
import { useAllAccounts, useGroups, useRefreshPeople, useRoles } from './people-queries';
import { PeopleTabs } from './people-tabs';
import deviceStyles from '../devices/devices-page.module.css';
import styles from './people.module.css';

/** How many accounts are in the group: counted from every account (groups do not list their members). */
function memberCount(group: Group, accounts: readonly Account[] | undefined, complete: boolean): string {
  if (accounts === undefined || group._id === undefined) return '…';
  const count = membersOf(group._id, accounts).length;
  return complete ? String(count) : `${count} or more`;
}

/** The groups: a real table, the name linking to the group's page. */
function GroupTable({
  groups,
  accounts,
  complete,
}: {
  groups: readonly Group[];
  accounts: readonly Account[] | undefined;
  complete: boolean;
}) {
  return (
    <table className="table">
      <caption className="visually-hidden">Groups</caption>
      <thead>
        <tr>
          <th scope="col">Group</th>
          <th scope="col">Description</th>
          <th scope="col">Roles</th>
          <th scope="col">Members</th>
          <th scope="col">Comes from</th>
        </tr>
      </thead>
      <tbody>
        {groups.map((group) => (
          <tr key={group._id}>
            <td className={styles.who}>
              <Link to={groupPath(group._id ?? '')}>{group.name}</Link>
            </td>
            <td>{group.description ? group.description : <span className="muted">none</span>}</td>
            <td>
              <RolesText roles={group.roles} />
            </td>
            <td className={styles.tight}>{memberCount(group, accounts, complete)}</td>
            <td className={styles.tight}>{group.provenance === undefined ? 'NAP' : <span className="mono">{group.provenance}</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * `/console/people/groups`: the groups with the roles they give and how many accounts are in each;
 * `New group` creates one with its roles; a name opens the group's page.
 */
export function GroupsPage() {
  const groups = useGroups();
  const accounts = useAllAccounts();
  const roles = useRoles();
  const refresh = useRefreshPeople();
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  const [notice] = useNotice();
  const rows = groups.data?.results ?? [];
  const complete = accounts.data !== undefined && (accounts.data.total ?? 0) <= accounts.data.results.length;
  const failed = groups.error ?? accounts.error ?? roles.error;
  if (isForbidden(failed)) return <ForbiddenPage error={failed} />;
  return (
    <div className="page">
      <PeopleTabs />
      <div className="page-header">
        <div className={styles.heading}>
          <h1>Groups</h1>
          <span className="muted">
            {groups.isSuccess ? `${rows.length} on the platform; an account holds the roles of its groups` : ''}
          </span>
        </div>
        <button type="button" className="button button-primary" onClick={() => setCreating(true)} disabled={!roles.isSuccess}>
          New group
        </button>
      </div>
      <Notice text={notice} />
      <PeopleError error={failed} title="The groups cannot be listed" />
      {groups.isError ? null : (
        <div className={frame.tableWrap} aria-busy={groups.isFetching}>
          <GroupTable groups={rows} accounts={accounts.data?.results} complete={complete} />
          {groups.isSuccess && rows.length === 0 ? (
            <div className={deviceStyles.empty}>
              <p>
                <strong>There is no group yet.</strong>
              </p>
              <p>Create one with New group and give it roles; then put accounts in it from their pages.</p>
            </div>
          ) : null}
          {groups.isPending ? <p className={deviceStyles.empty}>Loading groups…</p> : null}
        </div>
      )}
      {creating && roles.data ? (
        <NewGroupDialog
          roles={roles.data}
          onClose={() => setCreating(false)}
          onCreated={({ id, name }) => {
            setCreating(false);
            void refresh();
            const text = `Group “${name}” created. Put accounts in it from their pages.`;
            if (id !== undefined) void navigate(groupPath(id), { state: noticeState(text) });
          }}
        />
      ) : null}
    </div>
  );
}
