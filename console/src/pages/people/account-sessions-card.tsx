import { useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { userAgentSummary } from '@nap/contracts/dist/user-agent';
import { formatTime } from '../../api/job-data';
import { people } from '../../api/people';
import type { Account } from '../../api/people';
import { Dialog } from '../../components/dialog';
import { ErrorMessage } from '../../components/error-message';
import { FormActions } from '../../components/form-actions';
import { sinceText } from './people-data';
import { peopleKeys } from './people-queries';
import deviceStyles from '../devices/device-page.module.css';
import styles from './people.module.css';

/** How a session began, in words. */
const HOW: Record<string, string> = { login: 'Log-in', oauth: 'Token (OAuth)', sso: 'Browser sign-in' };

/**
 * The account's live sessions (a lost laptop, a leaked token): how, when and from where each began,
 * when it was last used, and ending one of them or every one. The list holds no token: each session
 * is named by a reference the platform gives.
 */
export function AccountSessionsCard({ account, now, onDone }: { account: Account; now: number; onDone: (notice: string) => void }) {
  const id = account._id ?? '';
  const username = account.username ?? '';
  const sessions = useQuery({ queryKey: peopleKeys.sessions(id), queryFn: () => people.sessions(id) });
  const [confirming, setConfirming] = useState(false);
  const endOne = useMutation({
    mutationFn: (sessionId: string) => people.endSession(id, sessionId),
    onSuccess: (answer) => onDone(`${answer.message}.`),
  });
  const endAll = useMutation({
    mutationFn: () => people.endSessions(id),
    onSuccess: (answer) => {
      setConfirming(false);
      onDone(`${answer.message}.`);
    },
  });
  const live = sessions.data ?? [];
  return (
    <section aria-labelledby="account-sessions-title" className={`card ${deviceStyles.card}`}>
      <div className={deviceStyles.cardHeader}>
        <h2 id="account-sessions-title">
          Sessions {sessions.data !== undefined ? <span className="muted">{live.length} live</span> : null}
        </h2>
        {live.length > 1 ? (
          <button type="button" className="button button-danger" onClick={() => setConfirming(true)}>
            End every session
          </button>
        ) : null}
      </div>
      <ErrorMessage error={sessions.error} title="The sessions cannot be shown" />
      <ErrorMessage error={endOne.error} title="The session was not ended" />
      {sessions.isPending ? <p className="muted">Loading the sessions…</p> : null}
      {sessions.data !== undefined && live.length === 0 ? (
        <p className={deviceStyles.note}>No live session: no token or browser of {username} is signed in now.</p>
      ) : null}
      {live.length > 0 ? (
        <table className="table">
          <caption className="visually-hidden">Live sessions of {username}</caption>
          <thead>
            <tr>
              <th scope="col">Began</th>
              <th scope="col">From</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {live.map((session) => {
              const began = Date.parse(session.created);
              const used = Date.parse(session.lastUsed);
              return (
                <tr key={session.id}>
                  <td>
                    <span title={formatTime(began)}>{HOW[session.method] ?? session.method}</span>
                    <span className={styles.under}>{sinceText(began, now)}</span>
                  </td>
                  <td>
                    <span title={session.userAgent}>{userAgentSummary(session.userAgent)}</span>
                    <span className={`${styles.under} mono`}>{session.address ?? 'address not known'}</span>
                  </td>
                  <td className={styles.tight} title={formatTime(used)}>
                    {sinceText(used, now)}
                  </td>
                  <td className={styles.tight}>
                    <button
                      type="button"
                      className="button"
                      aria-label={`End the session that began ${formatTime(began)} from ${session.address ?? 'an unknown address'}`}
                      disabled={endOne.isPending}
                      onClick={() => endOne.mutate(session.id)}
                    >
                      End
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      <p className={deviceStyles.note}>
        An ended session’s token is refused from the next request on; the person may log in again (Deactivate keeps them out).
      </p>
      {confirming ? (
        <Dialog title={`End every session of ${username}?`} onClose={() => setConfirming(false)}>
          <div className={styles.says}>
            <p>
              The {live.length} sessions of <strong>{username}</strong> end now: every browser and token of the account is refused from its
              next request on, scripts included.
            </p>
            <p className="muted">They may log in again at once; to keep them out, Deactivate the account or set a new password.</p>
          </div>
          <ErrorMessage error={endAll.error} title="The sessions were not ended" />
          <FormActions
            action="End every session"
            pendingAction="Ending…"
            pending={endAll.isPending}
            tone="danger"
            onAction={() => endAll.mutate()}
            cancel="Keep them"
            onCancel={() => setConfirming(false)}
          />
        </Dialog>
      ) : null}
    </section>
  );
}
