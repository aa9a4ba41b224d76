import { Link, useLocation } from 'react-router';
import jobStyles from '../job/job-page.module.css';
import styles from './people.module.css';

/** Accounts | Groups: the two lists of the People section, the current one marked for screen readers too. */
export function PeopleTabs() {
  const { pathname } = useLocation();
  const onGroups = pathname.startsWith('/people/groups');
  return (
    <nav aria-label="People" className={styles.tabs}>
      <ul>
        <li>
          <Link to="/people" aria-current={onGroups ? undefined : 'page'}>
            Accounts
          </Link>
        </li>
        <li>
          <Link to="/people/groups" aria-current={onGroups ? 'page' : undefined}>
            Groups
          </Link>
        </li>
      </ul>
    </nav>
  );
}

/** The breadcrumbs of an account's or a group's page. */
export function PeopleBreadcrumbs({ list, to, here }: { list: string; to: string; here: string }) {
  return (
    <nav aria-label="Breadcrumb" className={jobStyles.breadcrumbs}>
      <ol>
        <li>
          <Link to="/people">People</Link>
        </li>
        <li>
          <Link to={to}>{list}</Link>
        </li>
        <li>
          <span aria-current="page">{here}</span>
        </li>
      </ol>
    </nav>
  );
}
