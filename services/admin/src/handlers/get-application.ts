import type { Handler } from '@nap/bus';
import { applicationNamed } from '../domain/applications';
import { applicationRecordOf } from '../steps/applications';
import type { AdminContext } from '../context';

/** `GET /applications/:name`: get an application. */
export function getApplication(svc: AdminContext): Handler<'admin.getApplication'> {
  return async (input) => applicationRecordOf(svc, applicationNamed(input.params.name));
}
