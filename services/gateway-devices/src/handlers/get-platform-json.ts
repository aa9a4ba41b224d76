import type { Handler } from '@nap/bus';
import { RELEASE } from '@nap/contracts';
import { findOnPath } from '../clients/process-run';
import { DEVICE_TYPES } from '../domain/device-types';
import type { GatewayDevicesContext } from '../context';

/** The descriptor of this gateway, from what is really configured and installed. */
export function getPlatformJson(svc: GatewayDevicesContext): Handler<'gateway-devices.getPlatformJson'> {
  return async () => {
    const tools: Record<string, string | null> = {};
    for (const tool of ['ansible-playbook', 'ansible', 'tofu', 'terraform', 'python3']) tools[tool] = findOnPath(tool) ?? null;
    const stats = svc.limiter.stats();
    return {
      name: 'nap-gateway-devices',
      version: RELEASE,
      deviceTypes: DEVICE_TYPES,
      protocols: ['ssh', 'netconf', 'http'],
      sessionLimits: {
        global: svc.config.globalSessionLimit,
        perDevice: svc.config.deviceSessionLimit,
        perDeviceVariable: 'gw_session_limit',
        queueTimeoutMs: svc.config.sessionQueueTimeoutMs,
      },
      sessions: { active: stats.active, queued: stats.queued },
      directories: svc.config.dirs,
      inventoryFile: svc.config.inventoryFile,
      runTimeoutMs: svc.config.runTimeoutMs,
      iacBinary: svc.runners.iac.binary() ?? null,
      tools,
    };
  };
}
