import { Link } from 'react-router';
import { formatTime } from '../../api/job-data';
import type { Group } from '../../api/people';
import { StatusBadge } from '../../components/status-badge';
import { clockTime, failedLoginsText, sinceText } from './people-data';
import type { AccountState } from './people-data';
import deviceStyles from '../devices/devices-page.module.css';
import styles from './people.module.css';

/** An account's page in the console. */
export function accountPath(accountId: string): string {
  return `/people/accounts/${encodeURIComponent(accountId)}`;
}

/** A group's page in the console. */
export function groupPath(groupId: string): string {
  return `/people/groups/${encodeURIComponent(groupId)}`;
}

/** The badge of each state: its word, and the shape and colour of the status it reads like. */
const BADGE = { active: 'complete', inactive: 'canceled', locked: 'paused' } as const;

/**
 * Whether the account may log in, as a badge (`Active`, `Inactive`, `Locked until 16:05`), and its
 * failed logins under it while it has any.
 */
export function AccountStateBadge({ state, now }: { state: AccountState; now: number }) {
  const label =
    state.kind === 'locked' ? `Locked until ${clockTime(state.lockedUntil, now)}` : state.kind === 'active' ? 'Active' : 'Inactive';
  return (
    <>
      <StatusBadge status={BADGE[state.kind]} label={label} />
      {state.failedLogins > 0 ? (
        <span className={styles.failures}>
          <span className="visually-hidden"> · </span>
          {failedLoginsText(state.failedLogins)}
        </span>
      ) : null}
    </>
  );
}

/** When the account last signed in, from now (`3 h ago`), the time itself in its title; `never` when it has not. */
export function LastSignIn({ iso, now }: { iso: string | undefined; now: number }) {
  const at = iso === undefined ? Number.NaN : Date.parse(iso);
  if (!Number.isFinite(at)) return <span className="muted">never</span>;
  return (
    <time dateTime={iso} title={formatTime(at)}>
      {sinceText(at, now)}
    </time>
  );
}

/** An account's groups by name, each a link to the group's page; an id no group has any more is shown as it is. */
export function GroupChips({ ids, groups }: { ids: readonly string[]; groups: ReadonlyMap<string, Group> }) {
  if (ids.length === 0) return <span className="muted">none</span>;
  const named = ids.map((id) => ({ id, name: groups.get(id)?.name ?? id })).sort((a, b) => a.name.localeCompare(b.name));
  return (
    <ul className={deviceStyles.groups}>
      {named.map((group) => (
        <li key={group.id}>
          <Link to={groupPath(group.id)} aria-label={`Group ${group.name}`}>
            {group.name}
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** Roles as a short comma-separated list; `none` when there are none. */
export function RolesText({ roles }: { roles: readonly string[] | undefined }) {
  if (roles === undefined || roles.length === 0) return <span className="muted">none</span>;
  return <>{[...roles].sort().join(', ')}</>;
}

/** Groups by id, for naming the groups an account is in. */
export function groupsById(groups: readonly Group[] | undefined): Map<string, Group> {
  return new Map((groups ?? []).flatMap((group) => (group._id === undefined ? [] : [[group._id, group] as const])));
}
