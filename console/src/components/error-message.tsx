import { ApiError } from '../api/http';

/** An error from the platform as people read it: its message, and the code and request id to quote to an administrator. */
export function ErrorMessage({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const details =
    error instanceof ApiError ? [error.code, error.requestId && `request ${error.requestId}`].filter(Boolean).join(' · ') : '';
  return (
    <div role="alert" className="error-message">
      {title ? <strong>{title}: </strong> : null}
      {message}
      {details ? <span className="error-details"> ({details})</span> : null}
    </div>
  );
}
