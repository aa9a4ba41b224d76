import { Link } from 'react-router';
import { ApiError } from '../api/http';
import { ErrorMessage } from './error-message';

interface UnavailablePageProps {
  /** What the address names, as the heading says it: `Device “core-1”`, `Job …a3e999`. */
  subject: string;
  error: unknown;
  /** The list the person goes back to. */
  back: { to: string; label: string };
}

/**
 * The page of something the console cannot show: a heading that says what and whether it does not
 * exist (404) or could not be read, the platform's words (with its code when it failed), and a link back to its list.
 */
export function UnavailablePage({ subject, error, back }: UnavailablePageProps) {
  const missing = error instanceof ApiError && error.status === 404;
  return (
    <div className="page">
      <h1>{missing ? `${subject} not found` : `${subject} cannot be shown`}</h1>
      {missing ? <p>{error.message}. It may have been deleted, or the address is mistyped.</p> : <ErrorMessage error={error} />}
      <p>
        <Link to={back.to}>{back.label}</Link>
      </p>
    </div>
  );
}
