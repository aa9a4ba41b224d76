import type { LiveSettings } from '@nap/bus';
import { SERVICE_SETTINGS_SCHEMAS, parseAs } from '@nap/contracts';
import type { GatewayConfig } from './config';
import type { SessionLimiter } from './domain/session-limiter';

const schema = SERVICE_SETTINGS_SCHEMAS['gateway-devices'];

/**
 * The device gateway's live settings (`PUT /applications/GatewayDevices/properties`): session limits
 * and timeouts change on every replica while it runs. The configuration object is the one every
 * request reads, so a new timeout applies from the next request on; the limiter lets waiting
 * requests in at once when a limit rises.
 */
export function liveSettings(config: GatewayConfig, limiter: SessionLimiter): LiveSettings {
  return {
    schema,
    defaults: {
      sessionLimit: config.globalSessionLimit,
      deviceSessionLimit: config.deviceSessionLimit,
      sessionQueueTimeoutMs: config.sessionQueueTimeoutMs,
      connectTimeoutMs: config.connectTimeoutMs,
      runTimeoutMs: config.runTimeoutMs,
    },
    apply(values) {
      const { sessionLimit, deviceSessionLimit, sessionQueueTimeoutMs, connectTimeoutMs, runTimeoutMs } = parseAs(
        schema,
        values,
        'properties',
      );
      if (sessionLimit !== undefined) config.globalSessionLimit = sessionLimit;
      if (deviceSessionLimit !== undefined) config.deviceSessionLimit = deviceSessionLimit;
      if (sessionQueueTimeoutMs !== undefined) config.sessionQueueTimeoutMs = sessionQueueTimeoutMs;
      if (connectTimeoutMs !== undefined) config.connectTimeoutMs = connectTimeoutMs;
      if (runTimeoutMs !== undefined) config.runTimeoutMs = runTimeoutMs;
      limiter.setLimits({
        globalLimit: config.globalSessionLimit,
        perDeviceLimit: config.deviceSessionLimit,
        queueTimeoutMs: config.sessionQueueTimeoutMs,
      });
    },
  };
}
