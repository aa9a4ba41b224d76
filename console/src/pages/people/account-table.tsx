import { Link } from 'react-router';
import type { Account, Group } from '../../api/people';
import { AccountStateBadge, GroupChips, LastSignIn, RolesText, accountPath } from './account-parts';
import { accountState, byUsername, caseTwins, fullName, rolesOf, signInText } from './people-data';
import styles from './people.module.css';

/**
 * The accounts of one page: a real table. The username links to the account's page, with the
 * person's name under it; groups by name, the roles they give, how the account signs in, whether
 * it may log in now, and when it last did.
 */
export function AccountTable({ accounts, groups, now }: { accounts: readonly Account[]; groups: ReadonlyMap<string, Group>; now: number }) {
  const allGroups = [...groups.values()];
  // the page's accounts by username whatever its case (the platform pages them by code point: "OLGA" before "admin")
  const rows = [...accounts].sort(byUsername);
  const twins = caseTwins(accounts);
  return (
    <table className="table">
      <caption className="visually-hidden">Accounts</caption>
      <thead>
        <tr>
          <th scope="col">Account</th>
          <th scope="col">Groups</th>
          <th scope="col">Roles</th>
          <th scope="col">Signs in with</th>
          <th scope="col">Status</th>
          <th scope="col">Last sign-in</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((account) => {
          const id = account._id ?? '';
          const name = fullName(account);
          const groupIds = account.groups ?? [];
          return (
            <tr key={id}>
              <td className={styles.who}>
                <Link to={accountPath(id)}>{account.username}</Link>
                {name || account.email ? <span className={styles.under}>{name || account.email}</span> : null}
                {twins.has(account.username ?? '') ? (
                  <span className={styles.twin}>
                    another account than{' '}
                    {twins
                      .get(account.username ?? '')
                      ?.map((other) => `“${other}”`)
                      .join(', ')}
                  </span>
                ) : null}
              </td>
              <td>
                <GroupChips ids={groupIds} groups={groups} />
              </td>
              <td>
                <RolesText roles={account.roles ?? rolesOf(groupIds, allGroups)} />
              </td>
              <td className={styles.tight}>
                {account.provenance === undefined ? 'NAP' : <span className="mono">{signInText(account)}</span>}
              </td>
              <td className={styles.tight}>
                <AccountStateBadge state={accountState(account, now)} now={now} />
              </td>
              <td className={styles.tight}>
                <LastSignIn iso={account.lastLogin} now={now} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
