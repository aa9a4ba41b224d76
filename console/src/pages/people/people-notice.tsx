import { useEffect, useState } from 'react';
import { useLocation } from 'react-router';
import { ApiError } from '../../api/http';
import { ErrorMessage } from '../../components/error-message';
import styles from './people.module.css';

/** What a page that navigates after an action leaves for the next page to say (`navigate(to, { state: noticeState(…) })`). */
export function noticeState(notice: string): { notice: string } {
  return { notice };
}

/**
 * The short word on the last action (`Account "olga" unlocked…`): set by the page's actions, or
 * brought by the navigation that opened the page (a creation, a deletion). Cleared with `say('')`.
 */
export function useNotice(): [string, (text: string) => void] {
  const location = useLocation();
  const brought: unknown = location.state;
  const initial =
    typeof brought === 'object' && brought !== null && 'notice' in brought && typeof brought.notice === 'string' ? brought.notice : '';
  const [notice, setNotice] = useState(initial);
  useEffect(() => setNotice(initial), [initial, location.key]);
  return [notice, setNotice];
}

/** The notice on the page: a status region kept in place, so that screen readers hear each new text. */
export function Notice({ text }: { text: string }) {
  return (
    <p role="status" className={text ? styles.notice : 'visually-hidden'}>
      {text ? (
        <>
          <span aria-hidden="true">✓ </span>
          {text}
        </>
      ) : (
        ''
      )}
    </p>
  );
}

/** True for the platform's refusal of a caller whose roles may not read accounts and groups. */
export function isForbidden(error: unknown): boolean {
  return error instanceof ApiError && error.status === 403;
}

/** The whole page for a caller the platform refuses: the section's title and why, nothing to act on. */
export function ForbiddenPage({ error }: { error: unknown }) {
  return (
    <div className="page">
      <h1>People</h1>
      <PeopleError error={error} title="The accounts cannot be listed" />
    </div>
  );
}

/**
 * A read of the People pages that failed. A 403 says why in people's words (accounts and groups are
 * the admin role's), with the platform's message and code like any other error.
 */
export function PeopleError({ error, title }: { error: unknown; title: string }) {
  if (!error) return null;
  if (isForbidden(error)) return <ErrorMessage error={error} title="You may not read accounts and groups: they are for the admin role" />;
  return <ErrorMessage error={error} title={title} />;
}
