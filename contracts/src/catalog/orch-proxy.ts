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
  // operation 5
  {
    name: 'restAction',
    summary: 'REST action to the orchestrator',
    http: { method: 'POST', path: '/orch_manager/restAction/:adapterId' },
    roles: ['admin'],
    params: { adapterId: name('name of the adapter') },
    body: restActionBodySchema,
    response: restActionResultSchema,
    timeoutMs: TIMEOUTS_MS.device,
  },
  // operation 6
  {
    name: 'restQuery',
    summary: 'REST query to the orchestrator',
    http: { method: 'POST', path: '/orch_manager/restQuery/:adapterId' },
    roles: ['admin'],
    params: { adapterId: name('adapter instance name') },
    body: restQueryBodySchema,
    response: restQueryResultSchema,
    timeoutMs: TIMEOUTS_MS.device,
    notes: 'The spec calls the result an array and shows an object with instance_data; both shapes are valid answers.',
  },
  // operation 7
  {
    name: 'setLeaf',
    summary: 'Set leaf',
    http: { method: 'POST', path: '/orch_manager/setLeaf/:adapterId' },
    roles: ['admin'],
    params: { adapterId: name('the host the leaf is applied to') },
    body: setLeafBodySchema,
    response: setLeafResultSchema,
    timeoutMs: TIMEOUTS_MS.device,
  },
]);
