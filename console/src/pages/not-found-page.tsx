import { Link, useLocation } from 'react-router';

/** A console address that names no page. */
export function NotFoundPage() {
  const location = useLocation();
  return (
    <div className="page">
      <h1>No such page</h1>
      <p>
        The console has no page at <code>{location.pathname}</code>. <Link to="/jobs">Go to the jobs</Link>.
      </p>
    </div>
  );
}
