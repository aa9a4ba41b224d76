import { useEffect, useRef, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { nap } from '../api/nap';
import { useWaitingCount } from '../api/work-queue';
import type { Whoami } from '../api/nap';
import { useLiveEvents } from '../live/live-events';
import { maySee } from '../session/permissions';
import { SECTIONS } from '../session/sections';
import { useWhoami } from '../session/session';
import { ChangePasswordDialog } from './change-password-dialog';
import { PageTitle } from './page-title';
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

/** What the console has just done for the person (their password changed), until they dismiss it. */
function Notice({ text, onDismiss }: { text: string | undefined; onDismiss: () => void }) {
  return (
    <div className={text ? styles.notice : undefined}>
      {/* the status region stays on the page so that screen readers hear a new text in it */}
      <p role="status" className={text ? styles.noticeText : 'visually-hidden'}>
        {text ? (
          <>
            <span aria-hidden="true">✓ </span>
            {text}
          </>
        ) : (
          ''
        )}
      </p>
      {text ? (
        <button type="button" className="button" onClick={onDismiss}>
          Dismiss
        </button>
      ) : null}
    </div>
  );
}

/**
 * Whether the caller's password is NAP's to change: an account brought in by a sign-in method
 * (LDAP, RADIUS, OIDC, SAML) changes it there, and the platform would refuse.
 */
function keepsOwnPassword(whoami: Whoami | undefined): boolean {
  return whoami !== undefined && whoami.provenance === undefined;
}

/** The frame of every page after log-in: the header with the sections, Change password and Log out, the banners, the page. */
export function Layout() {
  const { data: whoami } = useWhoami();
  // beside Tasks: how many tasks wait for a person, when any
  const waitingCount = useWaitingCount(maySee(whoami, 'workflow.getTasks'));
  const [changingPassword, setChangingPassword] = useState(false);
  // on a narrow window (a phone) the sections and the caller's controls fold into a menu
  const [menuOpen, setMenuOpen] = useState(false);
  const { pathname } = useLocation();
  useEffect(() => setMenuOpen(false), [pathname]);
  const menuButton = useRef<HTMLButtonElement>(null);
  const main = useRef<HTMLElement>(null);
  // where the focus goes back when the dialog closes: the control that opened it, or on a phone the
  // Menu button, the menu having folded as the dialog opened
  const dialogOpener = useRef<HTMLElement | null>(null);
  const openPasswordDialog = (opener: HTMLElement) => {
    dialogOpener.current = menuButton.current?.checkVisibility() ? menuButton.current : opener;
    setMenuOpen(false);
    setChangingPassword(true);
  };
  const [notice, setNotice] = useState<string>();
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
      <a className={styles.skip} href="#main">
        Skip to the page
      </a>
      <header className={`${styles.header} ${menuOpen ? styles.open : ''}`}>
        <a className={styles.brand} href="/console/" aria-label="NAP operations console, home">
          <span aria-hidden="true" className={styles.logo}>
            ◈
          </span>
          NAP
        </a>
        <button
          type="button"
          className={`${styles.headerButton} ${styles.menuButton}`}
          aria-expanded={menuOpen}
          aria-controls="header-menu"
          ref={menuButton}
          onClick={() => setMenuOpen(!menuOpen)}
        >
          <span aria-hidden="true">{menuOpen ? '✕' : '☰'}</span> Menu
        </button>
        <div id="header-menu" className={styles.menu}>
          <nav aria-label="Main" className={styles.nav}>
            <ul>
              {SECTIONS.filter((section) => maySee(whoami, section.operation)).map((section) => (
                <li key={section.to}>
                  <NavLink
                    to={section.to}
                    className={({ isActive }) => (isActive ? `${styles.link} ${styles.active}` : styles.link)}
                    // read out as one phrase that holds the visible text: "Tasks 2 waiting"
                    aria-label={section.to === '/tasks' && waitingCount ? `${section.label} ${waitingCount} waiting` : undefined}
                  >
                    {section.label}
                    {section.to === '/tasks' && waitingCount ? (
                      <>
                        {' '}
                        <span className={styles.count}>{waitingCount}</span>
                      </>
                    ) : null}
                  </NavLink>
                </li>
              ))}
            </ul>
          </nav>
          <div className={styles.user}>
            <span className={styles.who}>
              <span className="visually-hidden">Logged in as </span>
              {whoami?.username}
              {whoami?.roles?.length ? <span className={styles.roles}> ({whoami.roles.join(', ')})</span> : null}
            </span>
            {keepsOwnPassword(whoami) ? (
              <button type="button" className={styles.headerButton} onClick={(event) => openPasswordDialog(event.currentTarget)}>
                Change password
              </button>
            ) : null}
            <button type="button" className={styles.headerButton} onClick={() => logout.mutate()} disabled={logout.isPending}>
              Log out
            </button>
          </div>
        </div>
      </header>
      <ConnectionBanner />
      <Notice text={notice} onDismiss={() => setNotice(undefined)} />
      {changingPassword ? (
        <ChangePasswordDialog
          username={whoami?.username}
          returnFocus={dialogOpener}
          onClose={() => setChangingPassword(false)}
          onChanged={() => {
            setChangingPassword(false);
            setNotice('Your password is changed. Your other sessions are signed out; this one goes on.');
          }}
        />
      ) : null}
      <main id="main" ref={main} tabIndex={-1} className={styles.main}>
        <PageTitle main={main} />
        <Outlet />
      </main>
    </div>
  );
}
