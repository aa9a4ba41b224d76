import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { ApiError } from '../api/http';
import { nap } from '../api/nap';
import { useDocumentTitle } from '../components/page-title';
import { useRetryAfter } from '../hooks/use-retry-after';
import { dropDrafts } from '../session/drafts';
import { safeNext } from '../session/next-page';
import { WHOAMI_KEY } from '../session/session';
import styles from './login-page.module.css';

/** Why the log-in page was opened: the platform answered 401 to a request of a signed-in page (`location.state`). */
export interface SessionEnded {
  sessionEnded: true;
  /** A change was being sent: `kept` when the form gives back what was written after the log-in, `lost` when not. */
  unsent: 'kept' | 'lost' | undefined;
}

function isSessionEnded(state: unknown): state is SessionEnded {
  return typeof state === 'object' && state !== null && (state as { sessionEnded?: unknown }).sessionEnded === true;
}

/** What the log-in page says of a session that ended under a page of the console, after why: what became of what was being sent. */
function sessionEndedText(state: SessionEnded): string {
  if (state.unsent === 'kept') return 'What you were sending was not sent: log in again, and the form opens with what you wrote.';
  if (state.unsent === 'lost') return 'What you were sending was not sent: log in again, then send it again.';
  return 'Log in again to go back to where you were.';
}

/**
 * What the login page says when the platform sent a person back from a browser sign-in that failed
 * (`?signInError=<error code>&requestId=<id>`): in words, never the text of the URL itself.
 */
function signInFailure(code: string | null, requestId: string | null): string | undefined {
  if (code === null) return undefined;
  const reasons: Record<string, string> = {
    UNAUTHENTICATED:
      'Signing in with your identity provider was refused: the sign-in was not begun in this browser, took too long, or its answer could not be verified. Try again.',
    FORBIDDEN: 'Your identity provider signed you in, but NAP does not let this account in. Ask an administrator.',
    LOGIN_THROTTLED: 'Too many sign-ins failed. Wait a few minutes, then try again.',
    AUTH_PROVIDER_UNAVAILABLE: 'The identity provider could not be reached. Try again later, or log in with a NAP account.',
    VALIDATION_FAILED: 'The sign-in link is not one this platform offers. Use a "Sign in with" button below.',
  };
  const reason =
    reasons[code] ?? `Signing in with your identity provider failed (${/^[A-Z_]{1,64}$/.test(code) ? code : 'unknown error'}).`;
  return requestId !== null && /^[\w.:-]{1,128}$/.test(requestId) ? `${reason} Request id: ${requestId}.` : reason;
}

/** What the login page says when a log-in with username and password failed. */
function loginFailure(error: Error): string {
  if (error instanceof ApiError && error.status === 401) return 'The username or password is wrong.';
  // the platform says for how long the account (or this address) waits
  if (error instanceof ApiError && error.code === 'LOGIN_THROTTLED') return error.message;
  return `Logging in failed: ${error.message}`;
}

/** `/console/login`: username and password; the platform sets the session cookie. */
export function LoginPage() {
  useDocumentTitle('Log in');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [params] = useSearchParams();
  const location = useLocation();
  const ended = isSessionEnded(location.state) ? location.state : undefined;
  const navigate = useNavigate();
  const client = useQueryClient();
  const retry = useRetryAfter();
  const login = useMutation({
    mutationFn: () => nap.login(username, password),
    onSuccess: async () => {
      client.clear();
      const whoami = await client.fetchQuery({ queryKey: WHOAMI_KEY, queryFn: nap.whoami });
      // what a form kept is its writer's alone
      if (ended === undefined || whoami.username === undefined) dropDrafts();
      // logged in: a page the router still refuses to open leads home, not to a failed log-in
      try {
        await navigate(safeNext(params.get('next')), { replace: true });
      } catch {
        await navigate('/', { replace: true });
      }
    },
    onError: (error) => retry.startFrom(error),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate();
  };
  // the identity providers of the platform: a link each, to GET /sso/login (a navigation, not a script)
  const sso = useQuery({ queryKey: ['sso-methods'], queryFn: nap.ssoMethods, staleTime: 60_000, retry: false });
  const returnTo = `/console${safeNext(params.get('next'))}`;
  const error = login.error;
  const message =
    error instanceof Error
      ? loginFailure(error)
      : login.isIdle
        ? signInFailure(params.get('signInError'), params.get('requestId'))
        : undefined;
  return (
    <main className={styles.page}>
      <form className={styles.form} onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">
          <span aria-hidden="true" className={styles.logo}>
            ◈
          </span>{' '}
          NAP operations console
        </h1>
        {ended && login.isIdle ? (
          <p role="status" className="attention-note">
            <strong>Your session ended</strong> (you logged out in another tab or window, or it expired). {sessionEndedText(ended)}
          </p>
        ) : null}
        <p className="muted">Log in with your NAP account.</p>
        <label htmlFor="login-username">Username</label>
        <input
          id="login-username"
          name="username"
          autoComplete="username"
          required
          autoFocus
          value={username}
          onChange={(e) => setUsername(e.target.value)}
        />
        <label htmlFor="login-password">Password</label>
        <input
          id="login-password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        {message ? (
          <p role="alert" className="error-message">
            {message}
          </p>
        ) : null}
        <button type="submit" className="button button-primary" disabled={login.isPending || retry.waiting}>
          {login.isPending ? 'Logging in…' : 'Log in'}
        </button>
        {retry.waiting ? <p className="muted">You can try again in {retry.seconds} s.</p> : null}
        {sso.data && sso.data.results.length > 0 ? (
          <nav aria-label="Single sign-on" className={styles.sso}>
            <p className="muted">or</p>
            {sso.data.results.map((method) => (
              <a key={method.name} className="button" href={nap.ssoLoginUrl(method.name, returnTo)}>
                Sign in with {method.label}
              </a>
            ))}
          </nav>
        ) : null}
      </form>
    </main>
  );
}
