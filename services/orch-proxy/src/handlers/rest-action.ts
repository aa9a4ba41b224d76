import type { Handler } from '@nap/bus';
import { connect } from '../context';
import type { OrchProxyContext } from '../context';
import { answerBody, checkPath, mediaType, requestMethod } from '../domain/orchestrator-requests';
import type { OrchestratorRequest } from '../domain/orchestrator-requests';

/**
 * `POST /orch_manager/restAction/:adapterId`: one RESTCONF call with the given method (default
 * POST), answered `[{ result }]`: the status as text for a bodiless answer, the body as JSON text otherwise.
 */
export function restAction(svc: OrchProxyContext): Handler<'orch-proxy.restAction'> {
  return async (input, ctx) => {
    const { params, body } = input.body;
    const method = requestMethod(params.method, 'body.params.method');
    const path = checkPath(params.path, 'body.params.path');
    const headers: Record<string, string> = { accept: mediaType(params.accept, 'body.params.accept') };
    const sendsBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
    if (sendsBody) headers['content-type'] = mediaType(params.contentType ?? 'yang-data+json', 'body.params.contentType');
    const orchestrator = await connect(svc, ctx, input.params.adapterId);
    const req: OrchestratorRequest = { method, path, headers, ...(sendsBody ? { body } : {}) };
    const answer = await orchestrator.call(req);
    const answered = answerBody(orchestrator.adapter.name, req, answer);
    const result = answered === undefined ? String(answer.status) : typeof answered === 'string' ? answered : JSON.stringify(answered);
    return [{ result }];
  };
}
