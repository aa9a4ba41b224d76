import { createSecretBox } from '@nap/runtime';
import { createSessionLimiter } from '../src/domain/session-limiter';
import type { DeviceDoc } from '../src/store/collections';
import { startGatewayPlatform, TEST_SECRET_KEY } from './platform';
import type { GatewayPlatform } from './platform';

/**
 * Device variables named after members of Object.prototype (`constructor`, `toString`) next to a
 * variable whose secrets are sealed apart: the sealed copies are looked up by the variable's own
 * name, so such a variable has none unless one was stored, and its own nested secrets are sealed.
 */

const CLEAR_PASSWORD = 'clear-password-5521';

let gw: GatewayPlatform;

beforeAll(async () => {
  gw = await startGatewayPlatform();
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

afterEach(() => {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

function variablesOf(body: unknown): Record<string, unknown> {
  return (body as { variables: Record<string, unknown> }).variables;
}

async function stored(name: string): Promise<DeviceDoc> {
  return (await gw.store.collection('devices').findOne({ name })) as unknown as DeviceDoc;
}

/** The opened sealed copy of variable `key` of device `name`, as stored (its own member only). */
async function sealedCopy(name: string, key: string): Promise<unknown> {
  const sealed = Object.getOwnPropertyDescriptor((await stored(name)).nestedSecrets ?? {}, key)?.value as unknown;
  return typeof sealed === 'string' ? JSON.parse(createSecretBox(TEST_SECRET_KEY).open(sealed)) : sealed;
}

it('a variable named constructor sent back with a mask, beside a variable with sealed secrets, is updated as any other', async () => {
  const created = await gw.http('POST', '/gw/createInventoryDevice', {
    name: 'proto-mask',
    variables: { creds: { user: 'ops', password: 'p-1' }, constructor: { user: 'u' }, toString: 't' },
  });
  expect(created.status).toBe(200);
  expect(Object.keys((await stored('proto-mask')).nestedSecrets ?? {})).toEqual(['creds']);

  // the mask stands where nothing secret is stored: it is kept as the text it is
  const updated = await gw.http('POST', '/gw/createInventoryDevice', {
    name: 'proto-mask',
    variables: { constructor: { user: 'u2', note: '********' }, toString: { password: 'p-2' } },
  });
  expect({ status: updated.status, body: updated.body }).toMatchObject({ status: 200 });
  const got = await gw.http('POST', '/gw/getInventoryDevice', { name: 'proto-mask' });
  expect(got.status).toBe(200);
  expect(variablesOf(got.body)).toEqual({
    creds: { user: 'ops', password: '********' },
    constructor: { user: 'u2', note: '********' },
    toString: { password: '********' },
  });
  const doc = await stored('proto-mask');
  expect(Object.keys(doc.nestedSecrets ?? {}).sort()).toEqual(['creds', 'toString']);
  expect(JSON.stringify(doc)).not.toContain('p-2');

  // sent back masked, the secret of toString is kept from its own sealed copy
  const again = await gw.http('POST', '/gw/createInventoryDevice', {
    name: 'proto-mask',
    variables: { toString: { password: '********', user: 'x' } },
  });
  expect(again.status).toBe(200);
  expect(await sealedCopy('proto-mask', 'toString')).toEqual({ password: 'p-2', user: 'x' });
});

it('a read seals the clear nested secrets of a variable named constructor written by an older replica', async () => {
  const box = createSecretBox(TEST_SECRET_KEY);
  const stamp = new Date().toISOString();
  // an older replica's write: creds already sealed apart, constructor's password in clear
  await gw.store.collection('devices').insertOne({
    name: 'proto-old',
    variables: { creds: { password: '********' }, constructor: { password: CLEAR_PASSWORD } },
    secrets: {},
    nestedSecrets: { creds: box.seal(JSON.stringify({ password: 'p-old' })) },
    groups: [],
    created: stamp,
    updated: stamp,
    createdBy: 'admin',
    updatedBy: 'admin',
  });
  const got = await gw.http('POST', '/gw/getInventoryDevice', { name: 'proto-old' });
  expect(got.status).toBe(200);
  expect(variablesOf(got.body)).toEqual({ creds: { password: '********' }, constructor: { password: '********' } });
  const doc = await stored('proto-old');
  expect(JSON.stringify(doc)).not.toContain(CLEAR_PASSWORD);
  expect(Object.keys(doc.nestedSecrets ?? {}).sort()).toEqual(['constructor', 'creds']);
  expect(await sealedCopy('proto-old', 'constructor')).toEqual({ password: CLEAR_PASSWORD });
});

it('the session limiter counts the waiters of a device named constructor or __proto__ as its own, never on Object', async () => {
  const limiter = createSessionLimiter({ perDeviceLimit: 1, globalLimit: 1 });
  const release = await limiter.acquire('r1');
  const waiting = ['constructor', '__proto__'].map((name) => limiter.acquire(name));
  const stats = limiter.stats();
  expect(Object.keys(stats.devices)).toEqual(['r1', 'constructor', '__proto__']);
  expect(Object.getOwnPropertyDescriptor(stats.devices, '__proto__')?.value).toEqual({ active: 0, queued: 1 });
  expect(stats.devices.constructor).toEqual({ active: 0, queued: 1 });
  expect((Object as unknown as Record<string, unknown>).queued).toBeUndefined();
  release();
  (await waiting[0])?.();
  (await waiting[1])?.();
  expect(limiter.stats()).toEqual({ active: 0, queued: 0, devices: {} });
});
