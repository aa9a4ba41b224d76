import type { Handler } from '@nap/bus';
import { connect } from '../context';
import type { OrchProxyContext } from '../context';
import { answerBody, checkPath, mediaType } from '../domain/orchestrator-requests';
import type { OrchestratorRequest } from '../domain/orchestrator-requests';

/**
 * `POST /orch_manager/restQuery/:adapterId`: a RESTCONF GET, answered `[{ instance_data }]` with the
 * orchestrator's JSON (`{}` for a 204: nothing there).
 */
export function restQuery(svc: OrchProxyContext): Handler<'orch-proxy.restQuery'> {
  return async (input, ctx) => {
    const { params } = input.body;
    const req: OrchestratorRequest = {
      method: 'GET',
      path: checkPath(params.path, 'body.params.path'),
      headers: { accept: mediaType(params.accept, 'body.params.accept') },
    };
    const orchestrator = await connect(svc, ctx, input.params.adapterId);
    const answer = await orchestrator.call(req);
    return [{ instance_data: answerBody(orchestrator.adapter.name, req, answer) ?? {} }];
  };
}
