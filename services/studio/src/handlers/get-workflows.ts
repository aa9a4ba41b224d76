import type { Handler } from '@nap/bus';
import { toListQuery } from '@nap/store';
import type { StudioContext } from '../context';
import { accessFilter } from '../domain/access';
import { WORKFLOW_LIST_FIELDS } from '../domain/list-fields';

/** `GET /automation-studio/workflows`: the automations list under the platform's own name. */
export function getWorkflows(svc: StudioContext): Handler<'studio.getWorkflows'> {
  return async (input) => svc.workflows.page(toListQuery(input.query, WORKFLOW_LIST_FIELDS), accessFilter(input.caller));
}
