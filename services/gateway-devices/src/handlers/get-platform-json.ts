import type { Handler } from '@nap/bus';
import { RELEASE } from '@nap/contracts';
import { findOnPath } from '../clients/process-run';
import { DEVICE_TYPES } from '../domain/device-types';
import type { GatewayContext } from '../context';

/** The descriptor of this gateway, from what is really configured and installed. */
export function getPlatformJson(g: GatewayContext): Handler<'gateway-devices.getPlatformJson'> {
  return async () => {
    const tools: Record<string, string | null> = {};
    for (const tool of ['ansible-playbook', 'ansible', 'tofu', 'terraform', 'python3']) tools[tool] = findOnPath(tool) ?? null;
    const stats = g.limiter.stats();
    return {
      name: 'nap-gateway-devices',
      version: RELEASE,
      deviceTypes: DEVICE_TYPES,
      protocols: ['ssh', 'netconf', 'http'],
      sessionLimits: {
        global: g.config.globalSessionLimit,
        perDevice: g.config.deviceSessionLimit,
        perDeviceVariable: 'gw_session_limit',
        queueTimeoutMs: g.config.sessionQueueTimeoutMs,
      },
      sessions: { active: stats.active, queued: stats.queued },
      directories: g.config.dirs,
      inventoryFile: g.config.inventoryFile,
      runTimeoutMs: g.config.runTimeoutMs,
      iacBinary: g.runners.iac.binary() ?? null,
      tools,
    };
  };
}
