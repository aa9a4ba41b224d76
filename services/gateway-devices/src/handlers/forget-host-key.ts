import { AppError, auditChanges } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** `DELETE /gw/knownHosts/:hostPort`: forgets the key trusted for the endpoint. Errors: 404 `HOST_KEY_NOT_FOUND`. */
export function forgetHostKey(svc: GatewayDevicesContext): Handler<'gateway-devices.forgetHostKey'> {
  return async (input, ctx) => {
    const { hostPort } = input.params;
    const before = await svc.knownHosts.forget(hostPort);
    if (before === undefined) throw new AppError('HOST_KEY_NOT_FOUND', `No host key is trusted for ${hostPort}`);
    ctx.audit({
      target: { kind: 'host-key', id: hostPort, name: hostPort },
      changes: auditChanges({ fingerprint: before }, { fingerprint: null }),
    });
    svc.logger.info({ hostPort, fingerprint: before, by: input.caller.username }, 'Host key forgotten');
    return { status: 'success', message: `The host key of ${hostPort} (${before}) is no longer trusted` };
  };
}
