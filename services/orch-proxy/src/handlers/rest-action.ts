import { AppError, OUTBOUND_METHODS } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import type { Connect } from '../domain/connect';
import { checkPath, mediaType, restconfError } from '../domain/orchestrator';
import type { OrchestratorRequest } from '../domain/orchestrator';

function isMethod(m: string): m is OrchestratorRequest['method'] {
  return (OUTBOUND_METHODS as readonly string[]).includes(m);
}

/** Operation 5: one RESTCONF call with the given method (default POST), answered `[{ result }]`: the status as text for a bodiless answer, the body as JSON text otherwise. */
export function restAction(connect: Connect): Handler<'orch-proxy.restAction'> {
  return async (input, ctx) => {
    const { params, body } = input.body;
    const method = (params.method ?? 'POST').trim().toUpperCase();
    if (!isMethod(method)) {
      throw new AppError(
        'VALIDATION_FAILED',
        `body.params.method "${params.method ?? ''}" is not an HTTP method (${OUTBOUND_METHODS.join(', ')})`,
        { details: [{ member: 'body.params.method', message: 'is not an HTTP method' }] },
      );
    }
    const path = checkPath(params.path, 'body.params.path');
    const headers: Record<string, string> = { accept: mediaType(params.accept, 'body.params.accept') };
    const sendsBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
    if (sendsBody) headers['content-type'] = mediaType(params.contentType ?? 'yang-data+json', 'body.params.contentType');
    const orchestrator = await connect(ctx, input.params.adapterId);
    const req: OrchestratorRequest = { method, path, headers, ...(sendsBody ? { body } : {}) };
    const answer = await orchestrator.call(req);
    if (answer.status < 200 || answer.status >= 300) throw restconfError(orchestrator.adapter.name, req, answer);
    const empty = answer.body === null || answer.body === undefined || answer.body === '';
    return [{ result: empty ? String(answer.status) : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body) }];
  };
}
