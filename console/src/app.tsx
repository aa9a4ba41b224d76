import { Suspense, lazy, useCallback, useEffect, useState } from 'react';
import type { ReactNode } from 'react';
import { QueryClient, QueryClientProvider, useQueryClient } from '@tanstack/react-query';
import { Navigate, Route, BrowserRouter, Routes, useLocation, useNavigate } from 'react-router';
import { ApiError, isLoggedOut, whenSessionLost } from './api/http';
import type { LostRequest } from './api/http';
import { Layout } from './components/layout';
import { LiveEventsProvider } from './live/live-events';
import { AuditPage } from './pages/audit/audit-page';
import { AutomationsPage } from './pages/automations/automations-page';
import { DevicePage } from './pages/devices/device-page';
import { DevicesPage } from './pages/devices/devices-page';
import { JobsPage } from './pages/jobs/jobs-page';
import { LoginPage } from './pages/login-page';
import type { SessionEnded } from './pages/login-page';
import { Section } from './pages/no-access-page';
import { NotFoundPage } from './pages/not-found-page';
import { TasksPage } from './pages/tasks/tasks-page';
import { WorkflowsPage } from './pages/workflows/workflows-page';
import { mayFollowEvents } from './session/permissions';
import { hasDraft } from './session/drafts';
import { homeOf } from './session/sections';
import { RequireSession, WHOAMI_KEY, useWhoami } from './session/session';

// the graph pages carry the graph library and the form renderer: loaded when first opened, not with the console
const JobPage = lazy(async () => ({ default: (await import('./pages/job/job-page')).JobPage }));
const WorkflowPage = lazy(async () => ({ default: (await import('./pages/workflows/workflow-page')).WorkflowPage }));
// the administrator's pages: loaded when an admin first opens them, not with everyone's console
const PeoplePages = lazy(async () => ({ default: (await import('./pages/people/people-pages')).PeoplePages }));
const PlatformPages = lazy(async () => ({ default: (await import('./pages/platform/platform-pages')).PlatformPages }));

/** A page loaded when first opened (the `lazy` ones above): a line saying so until it is there. */
function LazyPage({ children }: { children: ReactNode }) {
  return <Suspense fallback={<p className="page muted">Loading…</p>}>{children}</Suspense>;
}

/** Server state lives in the query cache: lists and documents are fetched, cached and refreshed by events. */
function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        // a 4xx will not change by asking again; a lost connection may
        retry: (count, error) => count < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
        refetchOnWindowFocus: false,
      },
    },
  });
}

/** `/console/`: the first page the caller may read (RequireSession has the caller by then). */
function Home() {
  const { data } = useWhoami();
  const home = homeOf(data);
  if (home !== undefined) return <Navigate to={home} replace />;
  const roles = data?.roles ?? [];
  return (
    <div className="page">
      <h1>No page to show</h1>
      <p>
        {roles.length === 0
          ? 'Your account has no role yet: none of its groups gives one, so you may change your password and log out, and nothing else.'
          : `Your roles (${roles.join(', ')}) let you use the platform through its HTTP interface, not read any page of this console.`}{' '}
        An administrator can give your account a group with a role that reads jobs (apiread, operations, engineering) or the audit trail
        (auditor).
      </p>
    </div>
  );
}

/** The live stream of job events, for a caller who may follow them (RequireSession has the caller by then). */
function LiveEvents({ children, onUnauthenticated }: { children: ReactNode; onUnauthenticated: () => void }) {
  const { data } = useWhoami();
  return (
    <LiveEventsProvider onUnauthenticated={onUnauthenticated} enabled={mayFollowEvents(data)}>
      {children}
    </LiveEventsProvider>
  );
}

/** What the log-in page was told of the session that ended last, while the person has not logged in again. */
let ended: SessionEnded | undefined;

/** The pages behind the session: the live stream runs while one of them is open. */
function SignedIn() {
  const client = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  // the log-in page says that the session ended, and whether what the person was sending was lost or is kept for them
  const lost = useCallback(
    (request?: LostRequest) => {
      // no session in this tab yet (the first GET /whoami answered 401: a first visit, a bookmark after a
      // restart): nothing ended, and RequireSession sends the person to log in without saying so
      if (ended === undefined && client.getQueryData(WHOAMI_KEY) === undefined) return;
      // the person logged out: what was still loading or following meets the session they ended
      if (isLoggedOut()) return;
      client.clear();
      const next = `${location.pathname}${location.search}`;
      const unsent = request === undefined || request.method === 'GET' ? undefined : hasDraft() ? 'kept' : 'lost';
      // several requests may meet the ended session at once (a change and a refresh): the change decides what is said
      const state: SessionEnded = { sessionEnded: true, unsent: unsent ?? ended?.unsent };
      ended = state;
      void navigate(`/login?next=${encodeURIComponent(next)}`, { replace: true, state });
    },
    [client, navigate, location.pathname, location.search],
  );
  const streamLost = useCallback(() => lost(), [lost]);
  useEffect(() => whenSessionLost(lost), [lost]);
  // signed in again: a later loss is a new one
  useEffect(() => {
    ended = undefined;
  }, []);
  return (
    <RequireSession>
      <LiveEvents onUnauthenticated={streamLost}>
        <Routes>
          <Route element={<Layout />}>
            <Route index element={<Home />} />
            <Route
              path="jobs"
              element={
                <Section operation="workflow.getJobs" what="jobs">
                  <JobsPage />
                </Section>
              }
            />
            <Route
              path="jobs/:jobId"
              element={
                <Section operation="workflow.getJobs" what="jobs">
                  <LazyPage>
                    <JobPage onUnauthenticated={streamLost} />
                  </LazyPage>
                </Section>
              }
            />
            <Route
              path="tasks"
              element={
                <Section operation="workflow.getTasks" what="the tasks waiting for a person">
                  <TasksPage />
                </Section>
              }
            />
            <Route
              path="automations"
              element={
                <Section operation="workflow.getAutomations" what="automations">
                  <AutomationsPage />
                </Section>
              }
            />
            <Route
              path="workflows"
              element={
                <Section operation="studio.getWorkflows" what="workflows">
                  <WorkflowsPage />
                </Section>
              }
            />
            <Route
              path="devices"
              element={
                <Section operation="gateway-devices.getInventoryDevices" what="devices">
                  <DevicesPage />
                </Section>
              }
            />
            <Route
              path="devices/:name"
              element={
                <Section operation="gateway-devices.getInventoryDevices" what="devices">
                  <DevicePage />
                </Section>
              }
            />
            <Route
              path="audit"
              element={
                <Section operation="admin.getAudit" what="the audit trail">
                  <AuditPage />
                </Section>
              }
            />
            <Route
              path="people/*"
              element={
                <LazyPage>
                  <PeoplePages />
                </LazyPage>
              }
            />
            <Route
              path="platform/*"
              element={
                <LazyPage>
                  <PlatformPages />
                </LazyPage>
              }
            />
            <Route
              path="workflows/:name"
              element={
                <Section operation="studio.getWorkflows" what="workflows">
                  <LazyPage>
                    <WorkflowPage />
                  </LazyPage>
                </Section>
              }
            />
            <Route path="*" element={<NotFoundPage />} />
          </Route>
        </Routes>
      </LiveEvents>
    </RequireSession>
  );
}

/** The console: served by the gateway at /console/, every page a deep link. */
export function App() {
  const [client] = useState(createQueryClient);
  return (
    <QueryClientProvider client={client}>
      <BrowserRouter basename="/console">
        <Routes>
          <Route path="login" element={<LoginPage />} />
          <Route path="*" element={<SignedIn />} />
        </Routes>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
