import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Route, Routes } from 'react-router';
import { platform } from '../../api/platform';
import { ErrorMessage } from '../../components/error-message';
import { maySee } from '../../session/permissions';
import { useWhoami } from '../../session/session';
import { NotFoundPage } from '../not-found-page';
import { AdapterPage } from './adapter-page';
import { PlatformPage } from './platform-page';

/**
 * For a caller whose roles do not include `admin`: the platform is asked once (`GET /applications`),
 * and its refusal is shown as it answers it. Should it answer (the caller's groups changed since the
 * console read them), the pages are shown: the platform decides.
 */
function ForAdminsOnly({ roles, children }: { roles: readonly string[]; children: ReactNode }) {
  const asked = useQuery({ queryKey: ['platform-access'], queryFn: platform.applications, retry: false, staleTime: 0 });
  if (asked.isSuccess) return children;
  return (
    <div className="page">
      <h1>Platform</h1>
      {asked.isPending ? (
        <p className="muted">Asking the platform…</p>
      ) : (
        <>
          <ErrorMessage error={asked.error} title="You may not read the platform’s state" />
          <p>
            The Platform pages show and change the platform’s applications, adapters and integrations: they are for the admin role.
            {roles.length > 0 ? ` Your roles are ${roles.join(', ')}.` : ' Your account has no role.'} An administrator can add your account
            to a group with the admin role.
          </p>
        </>
      )}
    </div>
  );
}

/** `/console/platform/*`: the platform's state (`/platform`) and an adapter's page (`/platform/adapters/<name>`), for the admin role. */
export function PlatformPages() {
  const { data: whoami } = useWhoami();
  const pages = (
    <Routes>
      <Route index element={<PlatformPage />} />
      <Route path="adapters/:name" element={<AdapterPage />} />
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
  if (maySee(whoami, 'admin.getApplications')) return pages;
  return <ForAdminsOnly roles={whoami?.roles ?? []}>{pages}</ForAdminsOnly>;
}
