import type { HandlerContext } from '@nap/bus';
import type { AdapterCache } from './adapter-cache';
import { Orchestrator } from './orchestrator';

/** Opens an orchestrator adapter for one request: its cached record (404/409/422 first), calls through admin within the request's deadline. */
export type Connect = (ctx: HandlerContext, adapterId: string) => Promise<Orchestrator>;

export function createConnect(cache: AdapterCache): Connect {
  return async (ctx, adapterId) => {
    const adapter = await cache.running(adapterId, (name) => ctx.call('admin.getAdapter', { params: { name } }));
    return new Orchestrator(
      adapter,
      (body) => ctx.call('admin.callAdapter', { body }),
      ctx.deadline,
      (name) => cache.drop(name),
    );
  };
}
