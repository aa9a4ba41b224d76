import { useEffect } from 'react';
import type { ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { SECTION_ROLES, maySee } from '../session/permissions';
import type { SectionOperation } from '../session/permissions';
import { SECTIONS, homeOf } from '../session/sections';
import { WHOAMI_KEY, useWhoami } from '../session/session';
import styles from './no-access-page.module.css';

/**
 * A page the caller's roles may not read, in a few words: what it is for, their roles and where
 * they may go, and no empty table or filters. The caller's roles are read again first: should an
 * administrator have just given one, the page shows (the platform still decides).
 */
function NoAccessPage({ operation, what }: { operation: SectionOperation; what: string }) {
  const client = useQueryClient();
  const { data } = useWhoami();
  useEffect(() => {
    void client.invalidateQueries({ queryKey: WHOAMI_KEY });
  }, [client]);
  const section = SECTIONS.find((s) => s.operation === operation);
  const roles = data?.roles ?? [];
  const home = homeOf(data);
  const homeLabel = SECTIONS.find((s) => s.to === home)?.label;
  return (
    <div className="page">
      <h1>{section?.label ?? what}</h1>
      <p className={styles.text}>
        <strong>You have no access to {what}.</strong> The {section?.label ?? 'this'} page is for the roles{' '}
        {SECTION_ROLES[operation].join(', ')}; {roles.length > 0 ? `your roles are ${roles.join(', ')}.` : 'your account has no role.'} An
        administrator can add your account to a group that gives one of them.
      </p>
      {home !== undefined && homeLabel !== undefined ? (
        <p className={styles.text}>
          <Link to={home}>Go to {homeLabel}</Link>
        </p>
      ) : null}
    </div>
  );
}

/** A page of the console, shown when the caller's roles may read what it shows; else a short page that says so. */
export function Section({ operation, what, children }: { operation: SectionOperation; what: string; children: ReactNode }) {
  const { data } = useWhoami();
  if (maySee(data, operation)) return children;
  return <NoAccessPage operation={operation} what={what} />;
}
