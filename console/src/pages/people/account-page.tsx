import { useEffect, useRef, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { people } from '../../api/people';
import type { Account, Group } from '../../api/people';
import { ErrorMessage } from '../../components/error-message';
import { useNow } from '../../hooks/use-now';
import { formatTime } from '../../api/job-data';
import { maySee } from '../../session/permissions';
import { useWhoami } from '../../session/session';
import { AccountGroupsCard } from './account-groups-card';
import { AccountSessionsCard } from './account-sessions-card';
import { AccountStateBadge, GroupChips, LastSignIn, RolesText, groupsById } from './account-parts';
import { DeactivateDialog, DeleteAccountDialog, SetPasswordDialog } from './account-dialogs';
import { accountState, fullName, hasNapPassword, lockExplanation, mayUnlock, rolesOf, sinceText } from './people-data';
import type { AccountState } from './people-data';
import { Notice, PeopleError, noticeState, useNotice } from './people-notice';
import { PeopleBreadcrumbs } from './people-tabs';
import { peopleKeys, useGroups, useRefreshPeople } from './people-queries';
import deviceStyles from '../devices/device-page.module.css';
import jobStyles from '../job/job-page.module.css';
import styles from './people.module.css';

type Opened = 'deactivate' | 'password' | 'delete' | undefined;

/**
 * How the account signs in: NAP's password (with Set password) or the method that keeps it, when it
 * last did, the failures counted now, and where its history is (the audit trail, for who may read it).
 */
function SignInCard({
  account,
  state,
  now,
  onSetPassword,
}: {
  account: Account;
  state: AccountState;
  now: number;
  onSetPassword: () => void;
}) {
  const { data: whoami } = useWhoami();
  const lastLogin = account.lastLogin === undefined ? Number.NaN : Date.parse(account.lastLogin);
  return (
    <section aria-labelledby="account-sign-in-title" className={`card ${deviceStyles.card}`}>
      <div className={deviceStyles.cardHeader}>
        <h2 id="account-sign-in-title">Sign-in</h2>
        {hasNapPassword(account) ? (
          <button type="button" className="button" onClick={onSetPassword}>
            Set password
          </button>
        ) : null}
      </div>
      <dl className={deviceStyles.facts}>
        <div className={deviceStyles.wide}>
          <dt>Signs in with</dt>
          <dd>
            {hasNapPassword(account) ? (
              'a password NAP keeps'
            ) : (
              <>
                <span className="mono">{account.provenance}</span>: the password is kept there, not in NAP, so it is set there
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>Last sign-in</dt>
          <dd>{Number.isFinite(lastLogin) ? `${formatTime(lastLogin)} (${sinceText(lastLogin, now)})` : 'never'}</dd>
        </div>
        <div>
          <dt>Failed logins counted</dt>
          <dd>{state.failedLogins === 0 ? 'none' : state.failedLogins}</dd>
        </div>
      </dl>
      <p className={deviceStyles.note}>
        {hasNapPassword(account) ? 'Set password, ' : ''}Deactivate and Delete end every session of the account at once (Sessions, below).
      </p>
      {maySee(whoami, 'admin.getAudit') ? (
        <p>
          <Link to={`/audit?target=${encodeURIComponent(account._id ?? '')}`}>Its changes in the audit trail</Link>
        </p>
      ) : null}
    </section>
  );
}

/**
 * `/console/people/accounts/<id>`: who the account is, whether it may log in (a lock explained),
 * and what an admin does with it: Unlock, Deactivate or Reactivate, its groups, Set password (NAP
 * accounts), Delete. Each action reads the account again and says what it did.
 */
export function AccountPage() {
  const { accountId = '' } = useParams();
  const account = useQuery({ queryKey: peopleKeys.account(accountId), queryFn: () => people.account(accountId) });
  const groups = useGroups();
  if (account.isPending || groups.isPending) return <p className="page muted">Loading the account…</p>;
  if (account.isError || groups.isError)
    return (
      <div className="page">
        <PeopleError error={account.error ?? groups.error} title="The account cannot be shown" />
        <Link to="/people">Back to the accounts</Link>
      </div>
    );
  return <AccountView account={account.data} groups={groups.data.results} />;
}

function AccountView({ account, groups }: { account: Account; groups: readonly Group[] }) {
  const id = account._id ?? '';
  const username = account.username ?? '';
  const { data: whoami } = useWhoami();
  const own = whoami !== undefined && (whoami.id ?? whoami._id) === id;
  const [notice, say] = useNotice();
  const [opened, setOpened] = useState<Opened>();
  const heading = useRef<HTMLHeadingElement>(null);
  const refresh = useRefreshPeople();
  const client = useQueryClient();
  const navigate = useNavigate();
  // a lock ends on its own: the page follows the clock while it lasts
  const now = useNow(account.lockedUntil !== undefined, 5_000);
  const state = accountState(account, now);

  const done = async (text: string) => {
    setOpened(undefined);
    await refresh();
    say(text);
  };
  const unlock = useMutation({ mutationFn: () => people.unlockAccount(id), onSuccess: (answer) => done(`${answer.message}.`) });
  const reactivate = useMutation({
    mutationFn: () => people.updateAccount(id, { inactive: false }),
    onSuccess: () => done(`Account “${username}” is active again: it can log in.`),
  });
  useEffect(() => {
    // the button that did it may be gone (Unlock with the lock): the focus goes to the page's title, which the notice follows
    if (notice !== '' && (document.activeElement === null || document.activeElement === document.body)) heading.current?.focus();
  }, [notice]);

  const name = fullName(account);
  const byId = groupsById(groups);
  const actionError = unlock.error ?? reactivate.error;
  return (
    <div className={`page ${jobStyles.page}`}>
      <PeopleBreadcrumbs list="Accounts" to="/people" here={username} />
      <Notice text={notice} />
      <section aria-labelledby="account-title" className={jobStyles.summary}>
        <div className="stack">
          <div className={styles.identity}>
            <h1 id="account-title" ref={heading} tabIndex={-1}>
              {username}
            </h1>
            <AccountStateBadge state={state} now={now} />
          </div>
          {name || account.email ? (
            <p className={styles.subtitle}>
              {[name, account.email].filter(Boolean).join(' · ')}
              {own ? ' · your account' : ''}
            </p>
          ) : own ? (
            <p className={styles.subtitle}>Your account</p>
          ) : null}
          <dl className={jobStyles.facts}>
            <div>
              <dt>Groups</dt>
              <dd>
                <GroupChips ids={account.groups ?? []} groups={byId} />
              </dd>
            </div>
            <div>
              <dt>Roles</dt>
              <dd>
                <RolesText roles={account.roles ?? rolesOf(account.groups ?? [], groups)} />
              </dd>
            </div>
            <div>
              <dt>Last sign-in</dt>
              <dd>
                <LastSignIn iso={account.lastLogin} now={now} />
              </dd>
            </div>
          </dl>
        </div>
        <div className={styles.summaryActions}>
          {/* one button for both: the focus stays on it when the account changes state */}
          <button
            type="button"
            className={account.inactive === true ? 'button' : 'button button-danger'}
            aria-disabled={reactivate.isPending}
            onClick={() => {
              if (reactivate.isPending) return;
              if (account.inactive === true) reactivate.mutate();
              else setOpened('deactivate');
            }}
          >
            {account.inactive === true ? (reactivate.isPending ? 'Reactivating…' : 'Reactivate') : 'Deactivate'}
          </button>
          {/* the platform refuses deleting one's own account: another admin does it */}
          {own ? null : (
            <button type="button" className="button button-danger" onClick={() => setOpened('delete')}>
              Delete
            </button>
          )}
        </div>
      </section>
      <ErrorMessage error={actionError} title={unlock.error ? 'The account was not unlocked' : 'The account was not reactivated'} />
      {account.inactive === true ? (
        <div className={styles.warning}>
          <p>
            Inactive: <strong>{username}</strong> cannot log in, by any method. Reactivate lets them log in again
            {hasNapPassword(account) ? ' with their password' : ''}.
          </p>
        </div>
      ) : null}
      {mayUnlock(state) ? (
        <div className={styles.warning}>
          <p>{lockExplanation(state, now)}</p>
          <button type="button" className="button" onClick={() => unlock.mutate()} disabled={unlock.isPending}>
            {unlock.isPending ? 'Unlocking…' : 'Unlock'}
          </button>
        </div>
      ) : null}
      <div className={styles.columns}>
        <AccountGroupsCard key={(account.groups ?? []).join(',')} account={account} groups={groups} onSaved={done} />
        <div className="stack">
          <SignInCard account={account} state={state} now={now} onSetPassword={() => setOpened('password')} />
          <AccountSessionsCard account={account} now={now} onDone={(text) => void done(text)} />
        </div>
      </div>
      {opened === 'deactivate' ? (
        <DeactivateDialog account={account} own={own} onClose={() => setOpened(undefined)} onDone={(text) => void done(text)} />
      ) : null}
      {opened === 'password' ? (
        <SetPasswordDialog account={account} own={own} onClose={() => setOpened(undefined)} onDone={(text) => void done(text)} />
      ) : null}
      {opened === 'delete' ? (
        <DeleteAccountDialog
          account={account}
          onClose={() => setOpened(undefined)}
          onDone={(text) => {
            setOpened(undefined);
            // the page of a deleted account must not read it again
            client.removeQueries({ queryKey: peopleKeys.account(id) });
            void navigate('/people', { state: noticeState(text) });
            void refresh();
          }}
        />
      ) : null}
    </div>
  );
}
