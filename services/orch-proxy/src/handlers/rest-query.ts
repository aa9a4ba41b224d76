import type { Handler } from '@nap/bus';
import type { Connect } from '../domain/connect';
import { checkPath, mediaType, restconfError } from '../domain/orchestrator';
import type { OrchestratorRequest } from '../domain/orchestrator';

/** Operation 6: a RESTCONF GET, answered `[{ instance_data }]` with the orchestrator's JSON (`{}` for a 204: nothing there). */
export function restQuery(connect: Connect): Handler<'orch-proxy.restQuery'> {
  return async (input, ctx) => {
    const { params } = input.body;
    const req: OrchestratorRequest = {
      method: 'GET',
      path: checkPath(params.path, 'body.params.path'),
      headers: { accept: mediaType(params.accept, 'body.params.accept') },
    };
    const orchestrator = await connect(ctx, input.params.adapterId);
    const answer = await orchestrator.call(req);
    if (answer.status < 200 || answer.status >= 300) throw restconfError(orchestrator.adapter.name, req, answer);
    const empty = answer.body === null || answer.body === undefined || answer.body === '';
    return [{ instance_data: empty ? {} : answer.body }];
  };
}
