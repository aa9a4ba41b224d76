import { useQuery, useQueryClient } from '@tanstack/react-query';
import { people } from '../../api/people';
import { WHOAMI_KEY } from '../../session/session';

/** Every query of the People pages starts with this key: one change invalidates them all (a group's roles change its members' roles). */
export const PEOPLE_KEY = ['people'] as const;

/** The most accounts one answer holds (the platform's largest page): enough to count the members of every group. */
export const ALL_ACCOUNTS_LIMIT = 500;

export const peopleKeys = {
  accounts: (query: unknown) => [...PEOPLE_KEY, 'accounts', query] as const,
  allAccounts: [...PEOPLE_KEY, 'accounts', 'all'] as const,
  account: (accountId: string) => [...PEOPLE_KEY, 'account', accountId] as const,
  sessions: (accountId: string) => [...PEOPLE_KEY, 'sessions', accountId] as const,
  groups: [...PEOPLE_KEY, 'groups'] as const,
  group: (groupId: string) => [...PEOPLE_KEY, 'group', groupId] as const,
  roles: [...PEOPLE_KEY, 'roles'] as const,
};

/** Every group, by name (the platform sorts them). */
export function useGroups() {
  return useQuery({ queryKey: peopleKeys.groups, queryFn: people.groups });
}

/** The roles a group can give, with what each allows: they change only with the platform. */
export function useRoles() {
  return useQuery({ queryKey: peopleKeys.roles, queryFn: people.roles, staleTime: Infinity });
}

/** Every account (up to {@link ALL_ACCOUNTS_LIMIT}): groups do not list their members, accounts name their groups. */
export function useAllAccounts() {
  return useQuery({ queryKey: peopleKeys.allAccounts, queryFn: () => people.accounts({ limit: ALL_ACCOUNTS_LIMIT }) });
}

/**
 * What to call after any change of an account or a group: the People pages read everything again,
 * and so does the caller's own session (an admin may have changed their own groups).
 */
export function useRefreshPeople(): () => Promise<void> {
  const client = useQueryClient();
  return async () => {
    await Promise.all([client.invalidateQueries({ queryKey: PEOPLE_KEY }), client.invalidateQueries({ queryKey: WHOAMI_KEY })]);
  };
}
