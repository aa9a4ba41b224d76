import { useQuery } from '@tanstack/react-query';
import { Navigate, useLocation } from 'react-router';
import type { ReactNode } from 'react';
import { isUnauthenticated } from '../api/http';
import { nap } from '../api/nap';
import type { Whoami } from '../api/nap';
import { ErrorMessage } from '../components/error-message';
import { mayCall } from './permissions';
import type { ActionOperation } from './permissions';

export const WHOAMI_KEY = ['whoami'] as const;

/** The caller (`GET /whoami`), kept in the query cache for the session. */
export function useWhoami() {
  return useQuery({ queryKey: WHOAMI_KEY, queryFn: nap.whoami, retry: false, staleTime: 5 * 60_000 });
}

/** What the logged-in caller may do: one question per action. */
export function usePermissions(): { may: (operation: ActionOperation) => boolean; whoami: Whoami | undefined } {
  const { data } = useWhoami();
  return { whoami: data, may: (operation) => mayCall(data, operation) };
}

/** Renders its children for a logged-in caller; anyone else goes to the log-in page and comes back after. */
export function RequireSession({ children }: { children: ReactNode }) {
  const location = useLocation();
  const whoami = useWhoami();
  if (whoami.isPending) return <p className="page muted">Checking your session…</p>;
  if (whoami.isError) {
    if (isUnauthenticated(whoami.error)) {
      const next = `${location.pathname}${location.search}`;
      return <Navigate to={`/login${next === '/' ? '' : `?next=${encodeURIComponent(next)}`}`} replace />;
    }
    return (
      <div className="page">
        <ErrorMessage error={whoami.error} title="The console cannot reach the platform" />
      </div>
    );
  }
  return children;
}
