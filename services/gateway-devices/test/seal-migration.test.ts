import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createMemoryBus } from '@nap/bus';
import { createClient, createSecretBox, loadConfig } from '@nap/runtime';
import type { ServiceDeps } from '@nap/runtime';
import { createEmbeddedStore } from '@nap/store';
import type { Collection, Doc, EmbeddedStore, Filter, FindOptions, Store } from '@nap/store';
import { createLogger, createMetrics } from '@nap/telemetry';
import { createGatewayDevicesService } from '../src/service';
import { ensureCollections, gatewayCollections } from '../src/store/collections';
import type { GatewayCollections } from '../src/store/collections';
import { InventoryRepository } from '../src/store/inventory-repository';
import { SEAL_NESTED_SECRETS, sealNestedSecretsOnce } from '../src/store/start-migrations';

/**
 * The start's sealing of secrets nested in device variables runs once: the first start scans the
 * inventory and records a versioned marker in the devices store; a start that finds the marker reads
 * no device but those that set their own session limit (from that variable's index).
 */

const SECRET_KEY = 'seal-migration-test-secret-key-32chars';
const DEVICES = 40;

type Read = { op: string; filter: Filter; options?: FindOptions };

/** The collection, with every read of it noted in `reads`. */
function recording<T extends Doc>(collection: Collection<T>, reads: Read[]): Collection<T> {
  return new Proxy(collection, {
    get(target, prop) {
      const member = Reflect.get(target, prop, target) as unknown;
      if (typeof member !== 'function') return member;
      if (prop === 'find' || prop === 'findOne' || prop === 'countDocuments')
        return (filter: Filter = {}, options?: FindOptions) => {
          reads.push({ op: prop, filter, ...(options === undefined ? {} : { options }) });
          return (member as (f: Filter, o?: FindOptions) => unknown).call(target, filter, options);
        };
      return (member as (...args: unknown[]) => unknown).bind(target);
    },
  });
}

/** The store, its `devices` collection recorded. */
function recordingStore(store: Store, reads: Read[]): Store {
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'collection')
        return (name: string) => (name === 'devices' ? recording(target.collection(name), reads) : target.collection(name));
      const member = Reflect.get(target, prop, target) as unknown;
      return typeof member === 'function' ? (member as (...args: unknown[]) => unknown).bind(target) : member;
    },
  });
}

function legacyDevice(i: number): Omit<Doc, '_id'> {
  const stamp = new Date(1_700_000_000_000 + i).toISOString();
  return {
    name: `legacy-${String(i).padStart(3, '0')}`,
    // every fourth device stored with a clear nested secret, as versions before the sealing did
    variables: i % 4 === 0 ? { gw_http_headers: { Authorization: `Bearer clear-${i}` } } : { host: `10.0.0.${i}` },
    secrets: {},
    groups: [],
    created: stamp,
    updated: stamp,
    createdBy: 'admin',
    updatedBy: 'admin',
  };
}

let root: string;
let store: EmbeddedStore;

beforeEach(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'nap-seal-migration-'));
  store = createEmbeddedStore({ path: path.join(root, 'gateway-devices') });
  await ensureCollections(store);
  await store.collection('devices').insertMany(Array.from({ length: DEVICES }, (_, i) => legacyDevice(i)));
  // one device that sets its own session limit, as the API stores it: a whole number
  await store.collection('devices').updateOne({ name: 'legacy-007' }, { $set: { 'variables.gw_session_limit': 3 } });
});

afterEach(async () => {
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

async function startAndStop(reads: Read[]): Promise<void> {
  const bus = createMemoryBus();
  const metrics = createMetrics({ defaultLabels: { component: 'test' } });
  const deps: ServiceDeps = {
    bus,
    store: recordingStore(store, reads),
    logger: createLogger({ name: 'seal-migration-test', level: 'silent' }),
    metrics,
    client: createClient(bus, metrics),
    config: loadConfig({ NAP_DATA_DIR: root, NAP_SECRET_KEY: SECRET_KEY }),
  };
  const running = await createGatewayDevicesService(deps).start();
  await running.stop();
  await bus.close();
}

const clearSecrets = async (): Promise<number> =>
  (await store.collection('devices').find({})).filter((d) => JSON.stringify(d).includes('Bearer clear-')).length;

describe('the start’s sealing of nested secrets', () => {
  it('scans the inventory at the first start and records it; a start with the marker reads no device but those with a session limit', async () => {
    expect(await clearSecrets()).toBe(DEVICES / 4);
    const first: Read[] = [];
    await startAndStop(first);
    expect(await clearSecrets()).toBe(0);
    expect(await store.collection('migrations').findOne({ _id: SEAL_NESTED_SECRETS.id })).toMatchObject({
      version: SEAL_NESTED_SECRETS.version,
      changed: DEVICES / 4,
    });
    // the scan read the inventory by name
    expect(first.filter((r) => r.op === 'find' && r.options?.sort?.name === 1).length).toBeGreaterThanOrEqual(1);

    const second: Read[] = [];
    await startAndStop(second);
    // no scan: the one read of the devices is that of the session limits
    expect(second).toEqual([
      { op: 'find', filter: { 'variables.gw_session_limit': { $gte: 1 } }, options: { projection: { name: 1, variables: 1 } } },
    ]);
    const plan = await store.explain('devices', second[0]?.filter, second[0]?.options);
    expect(plan).toMatchObject({ plan: 'index', index: 'variables.gw_session_limit_1', docsExamined: 1, returned: 1 });
  });

  it('scans again when the marker is of an older version, and records the new one', async () => {
    const c = gatewayCollections(store);
    const inventory = new InventoryRepository(c, createSecretBox(SECRET_KEY));
    await c.migrations.insertOne({
      _id: SEAL_NESTED_SECRETS.id,
      version: SEAL_NESTED_SECRETS.version - 1,
      completed: '2026-01-01T00:00:00.000Z',
      changed: 0,
    });
    expect(await sealNestedSecretsOnce(c, inventory)).toEqual({ ran: true, recorded: true, sealed: DEVICES / 4, changedMeanwhile: 0 });
    expect(await c.migrations.findOne({ _id: SEAL_NESTED_SECRETS.id })).toMatchObject({ version: SEAL_NESTED_SECRETS.version });
    expect(await sealNestedSecretsOnce(c, inventory)).toEqual({ ran: false });
  });

  it('records nothing when a device changed while the scan ran, so that the next start looks again', async () => {
    const reads: Read[] = [];
    const plain = gatewayCollections(store);
    const c: GatewayCollections = { ...plain, devices: recording(plain.devices, reads) };
    // a write lands between the scan's read of a page and its sealing of legacy-004
    const devices = c.devices;
    c.devices = new Proxy(devices, {
      get(target, prop) {
        const member = Reflect.get(target, prop, target) as unknown;
        if (prop === 'updateOne')
          return async (filter: Filter, update: Record<string, unknown>) => {
            if ((filter.name as { $eq?: string } | undefined)?.$eq === 'legacy-004')
              await plain.devices.updateOne({ name: 'legacy-004' }, { $set: { updated: new Date().toISOString() } });
            return plain.devices.updateOne(filter, update);
          };
        return typeof member === 'function' ? (member as (...args: unknown[]) => unknown).bind(target) : member;
      },
    });
    const inventory = new InventoryRepository(c, createSecretBox(SECRET_KEY));
    expect(await sealNestedSecretsOnce(c, inventory)).toEqual({ ran: true, recorded: false, sealed: DEVICES / 4 - 1, changedMeanwhile: 1 });
    expect(await c.migrations.findOne({ _id: SEAL_NESTED_SECRETS.id })).toBeNull();
    // the next start seals it and records the marker
    expect(await sealNestedSecretsOnce(plain, new InventoryRepository(plain, createSecretBox(SECRET_KEY)))).toEqual({
      ran: true,
      recorded: true,
      sealed: 1,
      changedMeanwhile: 0,
    });
    expect(await clearSecrets()).toBe(0);
  });
});
