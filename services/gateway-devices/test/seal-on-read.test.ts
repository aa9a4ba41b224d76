import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSecretBox } from '@nap/runtime';
import { createEmbeddedStore } from '@nap/store';
import type { EmbeddedStore, Filter, FindOneAndUpdateOptions, Update } from '@nap/store';
import { ensureCollections, gatewayCollections } from '../src/store/collections';
import type { DeviceDoc, GatewayCollections } from '../src/store/collections';
import { InventoryRepository } from '../src/store/inventory-repository';
import { SEAL_NESTED_SECRETS } from '../src/store/start-migrations';
import { startGatewayPlatform, TEST_SECRET_KEY } from './platform';
import type { GatewayPlatform } from './platform';

/**
 * A rolling upgrade: a replica of a version before nested secrets were sealed writes a device with
 * clear nested secrets after a new replica's start recorded that the inventory is sealed. Every read
 * of that device by the new version (an answer, a list, a request, an update) seals them in the
 * store, never over a concurrent change; answers are masked whether or not it is sealed yet.
 */

const OLD_TOKEN = 'Bearer old-replica-token-6612';
const OLD_PASSWORD = 'old-replica-password-4471';

/** A device as a replica of a version before the sealing of nested secrets writes it: nested secrets in clear. */
function oldReplicaDevice(name: string, variables: Record<string, unknown> = {}): Omit<DeviceDoc, '_id'> {
  const stamp = new Date().toISOString();
  return {
    name,
    variables: {
      gw_http_headers: { Authorization: OLD_TOKEN, 'X-Tenant': 'blue' },
      creds: { user: 'ops', password: OLD_PASSWORD },
      ...variables,
    },
    secrets: {},
    groups: [],
    created: stamp,
    updated: stamp,
    createdBy: 'admin',
    updatedBy: 'admin',
  };
}

function variablesOf(body: unknown): Record<string, unknown> {
  return (body as { variables: Record<string, unknown> }).variables;
}

const MASKED = { gw_http_headers: { Authorization: '********', 'X-Tenant': 'blue' }, creds: { user: 'ops', password: '********' } };

describe('clear nested secrets written by an older replica after the start’s sealing', () => {
  let gw: GatewayPlatform;
  let api: http.Server;
  let apiUrl: string;
  const seen: { url: string; authorization?: string }[] = [];

  beforeAll(async () => {
    gw = await startGatewayPlatform();
    api = http.createServer((req, res) => {
      seen.push({ url: req.url ?? '', ...(req.headers.authorization === undefined ? {} : { authorization: req.headers.authorization }) });
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}/api`;
  });

  afterAll(async () => {
    await new Promise((resolve) => api?.close(resolve));
    await gw?.stop();
  });

  /** Writes the device as an older replica does, after the marker, and checks it is in clear at rest. */
  async function writtenByOldReplica(name: string, variables: Record<string, unknown> = {}): Promise<void> {
    expect(await gw.store.collection('migrations').findOne({ _id: SEAL_NESTED_SECRETS.id })).toMatchObject({
      version: SEAL_NESTED_SECRETS.version,
    });
    await gw.store.collection('devices').insertOne(oldReplicaDevice(name, variables));
    expect(await storedInClear(name)).toBe(true);
  }

  async function storedInClear(name: string): Promise<boolean> {
    const text = JSON.stringify(await gw.store.collection('devices').findOne({ name }));
    return text.includes(OLD_TOKEN) || text.includes(OLD_PASSWORD);
  }

  it('an answer seals them, answers them masked and logs the device, never the secrets', async () => {
    // an array too: its sealing compares the stored array as read
    await writtenByOldReplica('old-answer', { list: [{ secret: OLD_PASSWORD, note: 'kept' }, 'plain'] });
    const got = await gw.http('POST', '/gw/getInventoryDevice', { name: 'old-answer' });
    expect(got.status).toBe(200);
    const masked = { ...MASKED, list: [{ secret: '********', note: 'kept' }, 'plain'] };
    expect(variablesOf(got.body)).toEqual(masked);
    expect(await storedInClear('old-answer')).toBe(false);
    const stored = (await gw.store.collection('devices').findOne({ name: 'old-answer' })) as unknown as DeviceDoc;
    expect(Object.keys(stored.nestedSecrets ?? {}).sort()).toEqual(['creds', 'gw_http_headers', 'list']);
    expect(stored.variables).toEqual(masked);
    expect(gw.logs()).toContain('Secrets nested in device variables sealed on read');
    expect(gw.logs()).toContain('"device":"old-answer"');
    expect(gw.logs()).not.toContain(OLD_TOKEN);
    expect(gw.logs()).not.toContain(OLD_PASSWORD);
  });

  it('a list seals each device of the page', async () => {
    await writtenByOldReplica('old-list-1');
    await writtenByOldReplica('old-list-2');
    const listed = await gw.call<{ results: { name: string; variables: Record<string, unknown> }[] }>('getDevicesFiltered', {
      filter: { name: 'old-list' },
    });
    expect(listed.results.map((d) => d.name).sort()).toEqual(['old-list-1', 'old-list-2']);
    for (const device of listed.results) expect(device.variables).toEqual(MASKED);
    expect(await storedInClear('old-list-1')).toBe(false);
    expect(await storedInClear('old-list-2')).toBe(false);
  });

  it('a request seals them and sends the secret', async () => {
    await writtenByOldReplica('old-request', { gw_http_base_url: apiUrl });
    const res = await gw.http('POST', '/gw/http_requests/request/execute', { host: 'old-request', method: 'GET', endpoint: 'items' });
    expect(res).toMatchObject({ status: 200, body: { status_code: 200, text: 'ok' } });
    expect(seen.at(-1)).toEqual({ url: '/api/items', authorization: OLD_TOKEN });
    expect(await storedInClear('old-request')).toBe(false);
  });

  it('an update of another variable seals them; one written back masked keeps the secret', async () => {
    await writtenByOldReplica('old-update', { gw_http_base_url: apiUrl });
    const updated = await gw.http('POST', '/gw/createInventoryDevice', { name: 'old-update', variables: { site: 'lab' } });
    expect(updated.status).toBe(200);
    expect(variablesOf(updated.body)).toMatchObject({ ...MASKED, site: 'lab' });
    expect(await storedInClear('old-update')).toBe(false);

    await writtenByOldReplica('old-restore', { gw_http_base_url: apiUrl });
    const restored = await gw.http('POST', '/gw/createInventoryDevice', {
      name: 'old-restore',
      variables: { gw_http_headers: { Authorization: '********', 'X-Tenant': 'green' } },
    });
    expect(variablesOf(restored.body)).toMatchObject({ gw_http_headers: { Authorization: '********', 'X-Tenant': 'green' } });
    expect(await storedInClear('old-restore')).toBe(false);
    await gw.http('POST', '/gw/http_requests/request/execute', { host: 'old-restore', method: 'GET', endpoint: 'x' });
    expect(seen.at(-1)).toEqual({ url: '/api/x', authorization: OLD_TOKEN });
  });
});

describe('the sealing on read, against concurrent writes', () => {
  let root: string;
  let store: EmbeddedStore;
  let plain: GatewayCollections;

  beforeEach(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'nap-seal-on-read-'));
    store = createEmbeddedStore({ path: path.join(root, 'gateway-devices') });
    await ensureCollections(store);
    plain = gatewayCollections(store);
  });

  afterEach(async () => {
    await store.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** A repository whose sealing writes let `meanwhile` write first, once, as a concurrent writer between the read and the sealing. */
  function racedRepository(meanwhile: () => Promise<void>): { inventory: InventoryRepository; sealedOnRead: string[] } {
    let pending: (() => Promise<void>) | undefined = meanwhile;
    const devices = new Proxy(plain.devices, {
      get(target, prop) {
        const member = Reflect.get(target, prop, target) as unknown;
        if (prop === 'findOneAndUpdate')
          return async (filter: Filter, update: Update, options?: FindOneAndUpdateOptions) => {
            const before = pending;
            pending = undefined;
            if (before !== undefined) await before();
            return target.findOneAndUpdate(filter, update, options);
          };
        return typeof member === 'function' ? (member as (...args: unknown[]) => unknown).bind(target) : member;
      },
    });
    const sealedOnRead: string[] = [];
    const inventory = new InventoryRepository({ ...plain, devices }, createSecretBox(TEST_SECRET_KEY), {
      onSealedOnRead: (device) => sealedOnRead.push(device),
    });
    return { inventory, sealedOnRead };
  }

  const stored = async (name: string): Promise<DeviceDoc> => {
    const doc = await plain.devices.findOne({ name });
    if (doc === null) throw new Error(`no device ${name}`);
    return doc;
  };

  it('an older replica’s write in the same millisecond is kept, answered masked, and sealed by the next read', async () => {
    await plain.devices.insertOne(oldReplicaDevice('raced'));
    const { updated } = await stored('raced');
    // same `updated`: only the comparison of the values tells the sealing the device changed
    const { inventory, sealedOnRead } = racedRepository(async () => {
      await plain.devices.updateOne(
        { name: 'raced' },
        { $set: { 'variables.gw_http_headers': { Authorization: 'Bearer concurrent-8830', 'X-Tenant': 'red' }, updated } },
      );
    });
    const read = await inventory.get('raced');
    expect(sealedOnRead).toEqual([]);
    // answered as read: the clear nested secrets masked all the same
    const view = inventory.view(read);
    expect(view.variables).toEqual(MASKED);
    expect(JSON.stringify(view)).not.toContain(OLD_TOKEN);
    expect(JSON.stringify(view)).not.toContain(OLD_PASSWORD);
    // the concurrent write is not lost
    expect((await stored('raced')).variables.gw_http_headers).toEqual({ Authorization: 'Bearer concurrent-8830', 'X-Tenant': 'red' });

    // the next read seals what is stored now
    const resolved = await inventory.resolve('raced');
    expect(sealedOnRead).toEqual(['raced']);
    expect(resolved?.variables.gw_http_headers).toEqual({ Authorization: 'Bearer concurrent-8830', 'X-Tenant': 'red' });
    expect(resolved?.variables.creds).toEqual({ user: 'ops', password: OLD_PASSWORD });
    const after = JSON.stringify(await stored('raced'));
    for (const secret of ['concurrent-8830', OLD_PASSWORD]) expect(after).not.toContain(secret);
  });

  it('a new replica’s update meanwhile is kept: its own secret wins, and its write seals the other variable', async () => {
    await plain.devices.insertOne(oldReplicaDevice('raced-new'));
    const other = new InventoryRepository(plain, createSecretBox(TEST_SECRET_KEY));
    const { inventory, sealedOnRead } = racedRepository(async () => {
      await other.upsert('raced-new', { variables: { gw_http_headers: { Authorization: 'Bearer newer-5518' } } }, 'update', 'ops');
    });
    // the other replica's update itself seals creds on its way out
    await inventory.get('raced-new');
    expect(sealedOnRead).toEqual([]);
    const doc = await stored('raced-new');
    expect(doc.updatedBy).toBe('ops');
    expect(JSON.stringify(doc)).not.toContain(OLD_PASSWORD);
    expect(JSON.stringify(doc)).not.toContain('newer-5518');
    const resolved = await inventory.resolve('raced-new');
    expect(resolved?.variables.gw_http_headers).toEqual({ Authorization: 'Bearer newer-5518' });
    expect(resolved?.variables.creds).toEqual({ user: 'ops', password: OLD_PASSWORD });
  });

  it('a device without clear nested secrets is read without a write', async () => {
    const { inventory, sealedOnRead } = racedRepository(() => Promise.reject(new Error('no write expected')));
    await inventory.upsert('clean', { variables: { gw_http_headers: { Authorization: 'Bearer sealed-1' }, site: 'a' } }, 'create', 'ops');
    const before = await stored('clean');
    expect((await inventory.get('clean')).updated).toBe(before.updated);
    expect((await inventory.list({})).items.map((d) => d.name)).toEqual(['clean']);
    expect(sealedOnRead).toEqual([]);
    expect(await stored('clean')).toEqual(before);
  });
});
