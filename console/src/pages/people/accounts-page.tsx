import { useMemo, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { people } from '../../api/people';
import { Pager } from '../../components/pager';
import frame from '../../components/list-frame.module.css';
import bar from '../../components/filter-bar.module.css';
import { FilterFold, setCount } from '../../components/filter-fold';
import { TypedFilterField, useTypedFilter } from '../../components/typed-filter';
import { useNow } from '../../hooks/use-now';
import { usePageClamp } from '../../hooks/use-page-clamp';
import { groupsById, accountPath } from './account-parts';
import { AccountTable } from './account-table';
import { NewAccountDialog } from './new-account-dialog';
import { ACCOUNT_PAGE_SIZES, readAccountParams, toAccountQuery, writeAccountParams } from './people-data';
import type { AccountListParams } from './people-data';
import { ForbiddenPage, Notice, PeopleError, isForbidden, noticeState, useNotice } from './people-notice';
import { peopleKeys, useGroups, useRefreshPeople } from './people-queries';
import { PeopleTabs } from './people-tabs';
import deviceStyles from '../devices/devices-page.module.css';
import styles from './people.module.css';
import { useUrlSearch } from '../../hooks/use-url-search';

/** The username filter: typed, and kept in the URL once typing settles (Enter sends it at once). */
function AccountFilters({ params, onChange }: { params: AccountListParams; onChange: (changes: Partial<AccountListParams>) => void }) {
  const username = useTypedFilter(params.username, (text) => onChange({ username: text, page: 1 }));
  return (
    <FilterFold count={setCount([params.username])}>
      <form role="search" aria-label="Filter accounts" className={bar.filters} onSubmit={(e) => e.preventDefault()}>
        <TypedFilterField id="account-username" label="Username" placeholder="username contains…" filter={username} />
        <button
          type="button"
          className="button"
          disabled={!params.username}
          onClick={() => {
            username.setTyped('');
            onChange({ username: '', page: 1 });
          }}
        >
          Clear filter
        </button>
      </form>
    </FilterFold>
  );
}

/** What an empty list says: how the first account is added, here and elsewhere. */
function NoAccountYet() {
  return (
    <div className={deviceStyles.empty}>
      <p>
        <strong>There is no account yet.</strong>
      </p>
      <p>
        Add the first with <strong>New account</strong>: a username, the groups that give its roles and an initial password. Scripts do the
        same with <code>nap create account -f account.json</code> or <code>POST /user-management/accounts</code>.
      </p>
    </div>
  );
}

/**
 * `/console/people`: the accounts, filtered by username (in the URL) and paged by the platform;
 * `New account` opens the dialog that creates one; a username opens the account's page.
 */
export function AccountsPage() {
  const [search, editSearch] = useUrlSearch();
  const navigate = useNavigate();
  const params = useMemo(() => readAccountParams(search), [search]);
  const query = useMemo(() => toAccountQuery(params), [params]);
  const accounts = useQuery({
    queryKey: peopleKeys.accounts(query),
    queryFn: ({ signal }) => people.accounts(query, signal),
    placeholderData: keepPreviousData,
  });
  const groups = useGroups();
  const refresh = useRefreshPeople();
  const [creating, setCreating] = useState(false);
  const [notice] = useNotice();
  // the locks end and the sign-ins grow older while the page is open
  const now = useNow(true, 30_000);
  // a change starts from the URL as it is now, which a render may not have drawn yet
  const update = (changes: Partial<AccountListParams>, options?: { replace: true }) =>
    editSearch((now) => writeAccountParams({ ...readAccountParams(now), ...changes }), options);

  const shown = accounts.data;
  const rows = shown?.results ?? [];
  const total = shown?.total ?? rows.length;
  const filtered = params.username !== '';
  usePageClamp(params.page, shown && !accounts.isPlaceholderData ? { total, limit: params.limit, count: rows.length } : undefined, (last) =>
    update({ page: last }, { replace: true }),
  );
  const byId = useMemo(() => groupsById(groups.data?.results), [groups.data]);
  const failed = accounts.error ?? groups.error;
  if (isForbidden(failed)) return <ForbiddenPage error={failed} />;
  return (
    <div className="page">
      <PeopleTabs />
      <div className="page-header">
        <div className={styles.heading}>
          <h1>Accounts</h1>
          <span className="muted">{accounts.isSuccess && !filtered ? `${total} on the platform` : ''}</span>
        </div>
        <button type="button" className="button button-primary" onClick={() => setCreating(true)} disabled={!groups.isSuccess}>
          New account
        </button>
      </div>
      <Notice text={notice} />
      <PeopleError error={failed} title={accounts.error ? 'The accounts cannot be listed' : 'The groups cannot be listed'} />
      {accounts.isError ? null : (
        <>
          <AccountFilters params={params} onChange={update} />
          <div className={frame.tableWrap} aria-busy={accounts.isFetching}>
            <AccountTable accounts={rows} groups={byId} now={now} />
            {accounts.isSuccess && rows.length === 0 ? (
              filtered ? (
                <p className={deviceStyles.empty}>No account’s username contains “{params.username}”.</p>
              ) : (
                <NoAccountYet />
              )
            ) : null}
            {accounts.isPending ? <p className={deviceStyles.empty}>Loading accounts…</p> : null}
          </div>
          <Pager
            label="Pages of accounts"
            noun={['account', 'accounts']}
            shown={shown === undefined ? undefined : { skip: query.skip, limit: query.limit, count: rows.length, total, exact: true }}
            page={params.page}
            limit={params.limit}
            sizes={ACCOUNT_PAGE_SIZES}
            loading={accounts.isPlaceholderData}
            onChange={update}
          />
        </>
      )}
      {creating && groups.data ? (
        <NewAccountDialog
          groups={groups.data.results}
          onClose={() => setCreating(false)}
          onCreated={(account) => {
            setCreating(false);
            void refresh();
            if (account._id !== undefined)
              void navigate(accountPath(account._id), {
                state: noticeState(`Account “${account.username ?? ''}” created. It can log in now.`),
              });
          }}
        />
      ) : null}
    </div>
  );
}
