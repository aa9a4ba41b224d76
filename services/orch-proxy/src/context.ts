import type { HandlerContext } from '@nap/bus';
import type { AdapterCache } from './clients/adapter-cache';
import { Orchestrator } from './clients/orchestrator';

/** What the handlers of the orch-proxy service share. */
export interface OrchProxyContext {
  /** Orchestrator adapters by name, without credentials, until admin says they changed. */
  adapters: AdapterCache;
}

/**
 * Opens an orchestrator adapter for one request: its cached record (404, 409 or 422 first), then
 * calls through admin as the caller, within the request's deadline.
 */
export async function connect(svc: OrchProxyContext, ctx: HandlerContext, adapterId: string): Promise<Orchestrator> {
  const adapter = await svc.adapters.running(adapterId, (name) => ctx.call('admin.getAdapter', { params: { name } }));
  return new Orchestrator(
    adapter,
    (body) => ctx.call('admin.callAdapter', { body }),
    ctx.deadline,
    (name) => svc.adapters.drop(name),
    ctx.trace,
  );
}
