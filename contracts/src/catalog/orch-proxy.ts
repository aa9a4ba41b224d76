import {
  restActionBodySchema,
  restActionResultSchema,
  restQueryBodySchema,
  restQueryResultSchema,
  setLeafBodySchema,
  setLeafResultSchema,
} from '../schemas/orch';
import { name } from '../schemas/common';
import { defineOperations, TIMEOUTS_MS } from './define';

/** Operations of the `orch-proxy` service: REST actions, REST queries and leaf setting on an orchestrator adapter. */
export const ORCH_PROXY_OPERATIONS = defineOperations('orch-proxy', [
  // the spec's POST /orch_manager/restAction/:adapterId
  {
    name: 'restAction',
    summary: 'REST action to the orchestrator',
    http: { method: 'POST', path: '/orch_manager/restAction/:adapterId' },
    roles: ['admin'],
    params: { adapterId: name('name of the adapter') },
    body: restActionBodySchema,
    response: restActionResultSchema,
    timeoutMs: TIMEOUTS_MS.device,
    notes:
      "One RESTCONF call through the NSO adapter (method default POST; bare media types get application/). Answers [{ result }]: the status code as text for a bodiless answer, the orchestrator's body as JSON text otherwise. Orchestrator errors keep its status, error-tag and message (ORCH_* codes).",
  },
  // the spec's POST /orch_manager/restQuery/:adapterId
  {
    name: 'restQuery',
    summary: 'REST query to the orchestrator',
    http: { method: 'POST', path: '/orch_manager/restQuery/:adapterId' },
    roles: ['admin'],
    params: { adapterId: name('adapter instance name') },
    body: restQueryBodySchema,
    response: restQueryResultSchema,
    timeoutMs: TIMEOUTS_MS.device,
    notes: "Answers [{ instance_data: <the orchestrator's JSON> }]; the object form of the spec's example stays a valid answer.",
  },
  // the spec's POST /orch_manager/setLeaf/:adapterId
  {
    name: 'setLeaf',
    summary: 'Set leaf',
    http: { method: 'POST', path: '/orch_manager/setLeaf/:adapterId' },
    roles: ['admin'],
    params: { adapterId: name('the host the leaf is applied to') },
    body: setLeafBodySchema,
    response: setLeafResultSchema,
    timeoutMs: TIMEOUTS_MS.device,
    notes:
      'JSON-RPC login, new_trans, set_value (set) or delete, validate_commit, commit with the flags of dryRun and options (dryrun, outformat: native dry-run output, async/sync: commit queue, no_overwrite; staging validates without committing). A failed step deletes the transaction. An undefined variable is 400 ORCH_VARIABLE_UNDEFINED; a dry run with async, sync or no_overwrite is 400.',
  },
]);
