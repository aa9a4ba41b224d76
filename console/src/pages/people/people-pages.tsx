import { Route, Routes } from 'react-router';
import { NotFoundPage } from '../not-found-page';
import { AccountPage } from './account-page';
import { AccountsPage } from './accounts-page';
import { GroupPage } from './group-page';
import { GroupsPage } from './groups-page';

/**
 * `/people/*`: the accounts and groups of the platform, for the admin role (the platform refuses
 * anyone else, and the pages say so): the accounts list, an account's page, the groups list and a
 * group's page.
 */
export function PeoplePages() {
  return (
    <Routes>
      <Route index element={<AccountsPage />} />
      <Route path="accounts/:accountId" element={<AccountPage />} />
      <Route path="groups" element={<GroupsPage />} />
      <Route path="groups/:groupId" element={<GroupPage />} />
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}
