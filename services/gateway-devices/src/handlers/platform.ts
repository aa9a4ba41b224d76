import { RELEASE } from '@nap/contracts';
import type { HandlerMap } from '@nap/bus';
import { DEVICE_TYPES } from '../domain/device-types';
import { findOnPath } from '../domain/process-run';
import type { GatewayContext } from './context';

/** `getPlatformJson`: the descriptor of this gateway, from what is really configured and installed. */
export function platformHandlers(g: GatewayContext): HandlerMap {
  return {
    getPlatformJson: async () => {
      const tools: Record<string, string | null> = {};
      for (const tool of ['ansible-playbook', 'ansible', 'tofu', 'terraform', 'python3']) tools[tool] = findOnPath(tool) ?? null;
      const stats = g.limiter.stats();
      return {
        name: 'nap-gateway-devices',
        version: RELEASE,
        deviceTypes: DEVICE_TYPES,
        protocols: ['ssh', 'netconf', 'http'],
        sessionLimits: { global: g.config.globalSessionLimit, perDevice: g.config.deviceSessionLimit, perDeviceVariable: 'gw_session_limit', queueTimeoutMs: g.config.sessionQueueTimeoutMs },
        sessions: { active: stats.active, queued: stats.queued },
        directories: g.config.dirs,
        inventoryFile: g.config.inventoryFile,
        runTimeoutMs: g.config.runTimeoutMs,
        iacBinary: g.runners.iacBinary() ?? null,
        tools,
      };
    },
  } as HandlerMap;
}
