import { auditChanges } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** `PUT /gw/knownHosts/:hostPort`: trusts the given fingerprint for the endpoint, replacing any trusted before. */
export function trustHostKey(svc: GatewayDevicesContext): Handler<'gateway-devices.trustHostKey'> {
  return async (input, ctx) => {
    const { hostPort } = input.params;
    // `ssh-keygen -l` never pads; a fingerprint copied from elsewhere may
    const fingerprint = input.body.fingerprint.replace(/=+$/, '');
    const { entry, before } = await svc.knownHosts.trust(hostPort, fingerprint);
    ctx.audit({
      target: { kind: 'host-key', id: hostPort, name: hostPort },
      changes: auditChanges({ fingerprint: before ?? null }, { fingerprint }),
    });
    svc.logger.info({ hostPort, fingerprint, before: before ?? null, by: input.caller.username }, 'Host key trusted by hand');
    return entry;
  };
}
