import type { KnownHostsStore } from '../domain/known-hosts';
import type { GatewayCollections } from './collections';

/**
 * Trusted host keys in the service store, so every replica trusts the same keys and trust survives
 * restarts. First use records the key only if no replica recorded one meanwhile.
 */
export function createStoreKnownHosts(
  c: GatewayCollections,
): KnownHostsStore & { fingerprintOf(hostPort: string): Promise<string | undefined> } {
  const get = async (hostPort: string): Promise<string | undefined> =>
    (await c.knownHosts.findOne({ _id: { $eq: hostPort } }))?.fingerprint;
  return {
    get,
    fingerprintOf: get,
    async set(hostPort, fingerprint, key) {
      await c.knownHosts.updateOne(
        { _id: { $eq: hostPort } },
        { $setOnInsert: { fingerprint, created: new Date().toISOString() } },
        { upsert: true },
      );
      // the key itself only for the fingerprint that is trusted, and only once
      if (key !== undefined)
        await c.knownHosts.updateOne(
          { _id: { $eq: hostPort }, fingerprint: { $eq: fingerprint }, key: { $exists: false } },
          { $set: { key: key.toString('base64') } },
        );
    },
    async keyOf(hostPort) {
      const key = (await c.knownHosts.findOne({ _id: { $eq: hostPort } }))?.key;
      return key === undefined ? undefined : Buffer.from(key, 'base64');
    },
  };
}
