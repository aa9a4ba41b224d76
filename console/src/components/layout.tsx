import { useMutation, useQueryClient } from '@tanstack/react-query';
import { NavLink, Outlet, useNavigate } from 'react-router';
import { nap } from '../api/nap';
import { useLiveEvents } from '../live/live-events';
import { maySee } from '../session/permissions';
import { SECTIONS } from '../session/sections';
import { useWhoami } from '../session/session';
import styles from './layout.module.css';

/** While a live stream is lost the page says so: what it shows may be behind until it reconnects. */
function ConnectionBanner() {
  const { states } = useLiveEvents();
  const down = Object.values(states).includes('down');
  return (
    <div role="status" aria-live="polite" className={down ? styles.banner : 'visually-hidden'}>
      {down ? 'Live updates are interrupted: reconnecting… What you see may be out of date until then.' : ''}
    </div>
  );
}

/** The frame of every page after log-in: the header with the sections and Log out, the banner, the page. */
export function Layout() {
  const { data: whoami } = useWhoami();
  const client = useQueryClient();
  const navigate = useNavigate();
  const logout = useMutation({
    mutationFn: nap.logout,
    onSettled: async () => {
      client.clear();
      await navigate('/login', { replace: true });
    },
  });
  return (
    <div className={styles.shell}>
      <header className={styles.header}>
        <a className={styles.brand} href="/console/" aria-label="NAP operations console, home">
          <span aria-hidden="true" className={styles.logo}>
            ◈
          </span>
          NAP
        </a>
        <nav aria-label="Main" className={styles.nav}>
          <ul>
            {SECTIONS.filter((section) => maySee(whoami?.roles, section.operation)).map((section) => (
              <li key={section.to}>
                <NavLink to={section.to} className={({ isActive }) => (isActive ? `${styles.link} ${styles.active}` : styles.link)}>
                  {section.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className={styles.user}>
          <span>
            <span className="visually-hidden">Logged in as </span>
            {whoami?.username}
            {whoami?.roles?.length ? <span className={styles.roles}> ({whoami.roles.join(', ')})</span> : null}
          </span>
          <button type="button" className={styles.logout} onClick={() => logout.mutate()} disabled={logout.isPending}>
            Log out
          </button>
        </div>
      </header>
      <ConnectionBanner />
      <main className={styles.main}>
        <Outlet />
      </main>
    </div>
  );
}
