import type { Handler } from '@nap/bus';
import { CAPABILITY_CANDIDATE } from '../clients/netconf-client';
import type { GatewayDevicesContext } from '../context';
import { refuseXmlFragment } from '../domain/netconf-xml';

/** `POST /gw/netconf/set_config/execute`: `<edit-config>` (the candidate when the agent has one, then commit), optionally under a lock. */
export function netconfSetConfig(svc: GatewayDevicesContext): Handler<'gateway-devices.netconfSetConfig'> {
  return async (input, ctx) => {
    const b = input.body;
    refuseXmlFragment('body.config', b.config);
    const outcome = await svc.access.withNetconf(
      { host: b.host, options: b.connection_options ?? {} },
      async (session) => {
        const target = b.target ?? (session.hasCapability(CAPABILITY_CANDIDATE) ? 'candidate' : 'running');
        const commit = b.commit ?? target === 'candidate';
        await session.editConfig({
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
  };
}
