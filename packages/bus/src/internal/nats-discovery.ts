import type { Svcm } from '@nats-io/services';
import type { ServiceInfo, ServiceStats } from '../types';
import { invalidArgument } from './errors';
import { isNoResponders, requestFailure } from './nats-convert';
import { DEFAULT_DISCOVER_TIMEOUT_MS, assertName, byNameThenId, toServiceInfo, toServiceStats } from './services';

/**
 * Discovery and stats of the services framework (`$SRV.INFO`, `$SRV.STATS`): replies are gathered
 * until `timeoutMs`, or `stallMs` after the last one, so that a caller does not wait the whole
 * timeout once every instance has answered.
 */
export class NatsDiscovery {
  constructor(
    private readonly svcm: Svcm,
    private readonly stallMs: number,
  ) {}

  async discover(name?: string, timeoutMs: number = DEFAULT_DISCOVER_TIMEOUT_MS): Promise<ServiceInfo[]> {
    const replies = await this.gather('info', name, timeoutMs);
    return replies.map(toServiceInfo).sort(byNameThenId);
  }

  async stats(name?: string, timeoutMs: number = DEFAULT_DISCOVER_TIMEOUT_MS): Promise<ServiceStats[]> {
    const replies = await this.gather('stats', name, timeoutMs);
    return replies.map(toServiceStats).sort(byNameThenId);
  }

  /** `$SRV.INFO|STATS[.name]` through the framework's client; no responders means no instances. */
  private async gather(verb: 'info' | 'stats', name: string | undefined, timeoutMs: number): Promise<unknown[]> {
    if (name !== undefined) assertName('Service', name);
    if (!Number.isFinite(timeoutMs) || timeoutMs < 1) throw invalidArgument(`timeoutMs must be >= 1, got ${timeoutMs}`);
    const client = this.svcm.client({ strategy: 'stall', maxWait: timeoutMs, stall: Math.min(timeoutMs, this.stallMs) });
    const out: unknown[] = [];
    try {
      const replies = verb === 'info' ? await client.info(name) : await client.stats(name);
      for await (const reply of replies) out.push(reply);
    } catch (err) {
      if (isNoResponders(err)) return out;
      throw requestFailure(err, `$SRV.${verb.toUpperCase()}`, timeoutMs);
    }
    return out;
  }
}
