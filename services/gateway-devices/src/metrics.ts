import { counterOnce, gaugeOnce } from '@nap/telemetry';
import type { Registry } from '@nap/telemetry';
import type { SessionLimiter } from './domain/session-limiter';

/**
 * The gateway-devices service's part of `/exporter_metrics`: device sessions open now (this
 * replica's limiter; summed across replicas) and device operations by protocol and outcome (`ok` or
 * the error code, a bounded set). Answers the callback {@link DeviceAccess} reports outcomes to.
 */
export function registerDeviceMetrics(registry: Registry, limiter: SessionLimiter): (protocol: 'ssh' | 'netconf', outcome: string) => void {
  gaugeOnce(registry, {
    name: 'nap_device_sessions_open',
    help: 'SSH and NETCONF sessions open to devices now',
    collect() {
      this.set(limiter.stats().active);
    },
  });
  gaugeOnce(registry, {
    name: 'nap_device_sessions_queued',
    help: 'Requests waiting for a device session slot (per-device or global limit reached)',
    collect() {
      this.set(limiter.stats().queued);
    },
  });
  const commands = counterOnce(registry, {
    name: 'nap_device_commands_total',
    help: 'Device operations (commands, configuration changes, NETCONF calls) by protocol and outcome',
    labelNames: ['protocol', 'outcome'],
  });
  // the successes of each protocol from zero, so that a rate or a ratio over the first operations is right
  for (const protocol of ['ssh', 'netconf']) commands.inc({ protocol, outcome: 'ok' }, 0);
  return (protocol, outcome) => commands.inc({ protocol, outcome });
}
