import { AppError, auditChanges } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';
import { endpointPortProblem } from '../domain/known-hosts';

/**
 * `PUT /gw/knownHosts/:hostPort`: trusts the given fingerprint for the endpoint, replacing any trusted
 * before. A port outside 1..65535 is refused: 400 `VALIDATION_FAILED` naming `params.hostPort`.
 */
export function trustHostKey(svc: GatewayDevicesContext): Handler<'gateway-devices.trustHostKey'> {
  return async (input, ctx) => {
    const { hostPort } = input.params;
    const problem = endpointPortProblem(hostPort);
    if (problem !== undefined) {
      throw new AppError('VALIDATION_FAILED', `params.hostPort: ${problem}`, {
        details: [{ member: 'params.hostPort', message: problem }],
      });
    }
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
