import type { Handler } from '@nap/bus';
import { toListQuery } from '@nap/store';
import { accessFilter } from '../domain/access';
import { WORKFLOW_LIST_FIELDS } from './get-automations';
import type { StudioDeps } from './deps';

/** `GET /automation-studio/workflows`: the automations list under the platform's own name. */
export function getWorkflows(deps: StudioDeps): Handler<'studio.getWorkflows'> {
  return async (input) => deps.workflows.page(toListQuery(input.query, WORKFLOW_LIST_FIELDS), accessFilter(input.caller));
}
