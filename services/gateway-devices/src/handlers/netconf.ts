import type { HandlerContext, HandlerMap } from '@nap/bus';
import type { ConnectionOverrides } from '../device-access';
import { extractData } from '../domain/netconf-xml';
import type { NetconfDatastore } from '../domain/netconf-client';
import type { GatewayContext } from './context';

type NetconfOverrides = ConnectionOverrides & { hostkey_verify?: boolean | string; timeout?: number };
type Target = { host: string; connection_options?: NetconfOverrides };

/** The operation inside an `<rpc>` element, when the caller sent the whole element. */
function innerRpc(xml: string): string {
  const m = /^\s*(?:<\?xml[^>]*\?>\s*)?<(?:[A-Za-z_][\w.-]*:)?rpc(?:\s[^>]*)?>([\s\S]*)<\/(?:[A-Za-z_][\w.-]*:)?rpc\s*>\s*$/.exec(xml);
  return m?.[1] === undefined ? xml.trim() : m[1].trim();
}

/** NETCONF over the inventory device's netconf port (gw_netconf_port, default 830). */
export function netconfHandlers(g: GatewayContext): HandlerMap {
  const request = (t: Target) => ({ host: t.host, options: t.connection_options ?? {} });
  return {
    netconfGetConfig: async (input: { body: Target & { source?: NetconfDatastore; filter?: string } }, ctx: HandlerContext) => {
      const { source = 'running', filter } = input.body;
      const data = await g.access.withNetconf(request(input.body), (s) => s.getConfig({ source, ...(filter === undefined || filter === '' ? {} : { filter }) }), { deadline: ctx.deadline });
      return { status: 'success', host: input.body.host, source, data };
    },
    netconfSetConfig: async (
      input: { body: Target & { config: string; target?: 'running' | 'candidate'; default_operation?: 'merge' | 'replace' | 'none'; lock?: boolean; commit?: boolean } },
      ctx: HandlerContext,
    ) => {
      const b = input.body;
      const outcome = await g.access.withNetconf(
        request(b),
        async (s) => {
          const target = b.target ?? (s.hasCapability('urn:ietf:params:netconf:capability:candidate:1.0') ? 'candidate' : 'running');
          const commit = b.commit ?? target === 'candidate';
          await s.editConfig({
            config: b.config,
            target,
            commit,
            lock: b.lock ?? false,
            ...(b.default_operation === undefined ? {} : { defaultOperation: b.default_operation }),
          });
          return { target, committed: commit && target === 'candidate' };
        },
        { deadline: ctx.deadline },
      );
      return { status: 'success', host: b.host, ...outcome };
    },
    netconfExecRpc: async (input: { body: Target & { rpc: string } }, ctx: HandlerContext) => {
      const reply = await g.access.withNetconf(request(input.body), (s) => s.rpc(innerRpc(input.body.rpc)), { deadline: ctx.deadline });
      return { status: 'success', host: input.body.host, data: extractData(reply), reply };
    },
  } as HandlerMap;
}
