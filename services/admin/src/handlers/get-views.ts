import { AppError } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import type { AdminContext } from '../context';

/**
 * `GET /authorization/views`: 404, always, saying why. NAP has no authorization views (Itential's
 * console pages and manual-task views that a role allows beside methods): its console shows a page
 * to whoever may call the operations behind it, so there is nothing a role could allow and nothing
 * to list. Not 501: nothing is left to build (every operation of the catalog is built).
 */
export function getViews(_svc: AdminContext): Handler<'admin.getViews'> {
  return () =>
    Promise.reject(
      new AppError(
        'NOT_FOUND',
        'NAP has no authorization views: its console shows each page to whoever may call the operations behind it, ' +
          'so a role allows methods only (GET /authorization/methods, ipctl get methods, lists them); ' +
          'the allowedViews of a role are kept as given and grant nothing',
      ),
    );
}
