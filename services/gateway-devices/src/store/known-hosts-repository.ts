import type { ListQueryOptions } from '@nap/contracts';
import { listDocuments, toListQuery } from '@nap/store';
import type { ListFields } from '@nap/store';
import type { GatewayCollections } from './collections';

/**
 * Where trusted SSH host keys are kept, keyed by `host:port`. The service keeps them in its store
 * ({@link createStoreKnownHosts}) so every replica trusts the same keys; tests and tools use
 * {@link createMemoryKnownHostsStore}.
 */
export interface KnownHostsStore {
  /** The trusted fingerprint (`SHA256:<base64>`) of `hostPort`, or `undefined` when none is known. */
  get(hostPort: string): Promise<string | undefined>;
  /**
   * Trusts `fingerprint` for `hostPort` from now on (unless another key is trusted already). With
   * `key` (the wire blob whose fingerprint it is), the key itself is kept too, so that programs that
   * check host keys themselves (Ansible over OpenSSH or paramiko) get a known_hosts file.
   */
  set(hostPort: string, fingerprint: string, key?: Buffer): Promise<void>;
  /** The trusted key blob of `hostPort`, when it was kept. */
  keyOf?(hostPort: string): Promise<Buffer | undefined>;
}

/** A trusted key as the known-hosts routes show it. */
export interface KnownHostEntry {
  hostPort: string;
  fingerprint: string;
  created: string;
}

/** What operators do with the trusted keys: read them, trust one by hand, forget one. */
export interface KnownHostsAdmin {
  /** A page of the trusted keys by the shared list options. */
  list(query: ListQueryOptions): Promise<{ results: KnownHostEntry[]; total: number }>;
  /** Trusts `fingerprint` for `hostPort`, replacing any key trusted before; answers the entry and the fingerprint it replaced. */
  trust(hostPort: string, fingerprint: string): Promise<{ entry: KnownHostEntry; before: string | undefined }>;
  /** Forgets the key trusted for `hostPort`; answers its fingerprint, `undefined` when none was. */
  forget(hostPort: string): Promise<string | undefined>;
}

const KNOWN_HOST_FIELDS: ListFields = {
  filter: ['hostPort', 'fingerprint'],
  sort: ['hostPort', 'created'],
  defaultSort: { hostPort: 1 },
};

/**
 * Trusted host keys in the service store, so every replica trusts the same keys and trust survives
 * restarts. First use records the key only if no replica recorded one meanwhile; operators list,
 * pin and forget keys through the same store ({@link KnownHostsAdmin}).
 */
export function createStoreKnownHosts(c: GatewayCollections): KnownHostsStore & KnownHostsAdmin {
  const get = async (hostPort: string): Promise<string | undefined> =>
    (await c.knownHosts.findOne({ _id: { $eq: hostPort } }))?.fingerprint;
  return {
    get,
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
    async list(options) {
      // one entry per SSH endpoint the gateway reached: few enough to page in memory, by the same rules as the stores
      const all = await c.knownHosts.find({}, { projection: { key: 0 } });
      const page = listDocuments(
        all.map((d) => ({ _id: d._id, hostPort: d._id, fingerprint: d.fingerprint, created: d.created })),
        toListQuery(options, KNOWN_HOST_FIELDS),
      );
      return { results: page.items.map(({ hostPort, fingerprint, created }) => ({ hostPort, fingerprint, created })), total: page.total };
    },
    async trust(hostPort, fingerprint) {
      const created = new Date().toISOString();
      // a new key: the blob kept for the old one (Ansible's known_hosts) goes with it
      const before = await c.knownHosts.findOneAndUpdate(
        { _id: { $eq: hostPort } },
        { $set: { fingerprint, created }, $unset: { key: '' } },
        { upsert: true, returnDocument: 'before' },
      );
      return { entry: { hostPort, fingerprint, created }, before: before?.fingerprint };
    },
    async forget(hostPort) {
      return (await c.knownHosts.findOneAndDelete({ _id: { $eq: hostPort } }))?.fingerprint;
    },
  };
}

/** A known-hosts store in memory, for tests and single-process tools. */
export function createMemoryKnownHostsStore(initial: Readonly<Record<string, string>> = {}): KnownHostsStore & {
  /** A copy of every entry. */
  entries(): Record<string, string>;
} {
  const keys = new Map<string, string>(Object.entries(initial));
  const blobs = new Map<string, Buffer>();
  return {
    get: (hostPort) => Promise.resolve(keys.get(hostPort)),
    set: (hostPort, fingerprint, key) => {
      if (!keys.has(hostPort)) keys.set(hostPort, fingerprint);
      if (key !== undefined && keys.get(hostPort) === fingerprint) blobs.set(hostPort, key);
      return Promise.resolve();
    },
    keyOf: (hostPort) => Promise.resolve(blobs.get(hostPort)),
    entries: () => Object.fromEntries(keys),
  };
}
