import type { KnownHostsStore } from '../domain/known-hosts';
import type { GatewayCollections } from './collections';

/**
 * Trusted host keys in the service store, so every replica trusts the same keys and trust survives
 * restarts. First use records the key only if no replica recorded one meanwhile.
 */
export function createStoreKnownHosts(c: GatewayCollections): KnownHostsStore & { fingerprintOf(hostPort: string): Promise<string | undefined> } {
  const get = async (hostPort: string): Promise<string | undefined> => (await c.knownHosts.findOne({ _id: { $eq: hostPort } }))?.fingerprint;
  return {
    get,
    fingerprintOf: get,
    async set(hostPort, fingerprint) {
      await c.knownHosts.updateOne({ _id: { $eq: hostPort } }, { $setOnInsert: { fingerprint, created: new Date().toISOString() } }, { upsert: true });
    },
  };
}
