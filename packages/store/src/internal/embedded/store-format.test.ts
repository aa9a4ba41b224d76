import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { createEmbeddedStore } from '../../index';
import { STORE_FORMAT, STORE_FORMAT_KEY } from './store-format';

// Going back to an older release after an upgrade: the older release refuses a store a newer one
// wrote in a format it cannot read, naming both formats, instead of failing on each document.

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'nap-store-format-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** The marker as LMDB holds it, read with the store closed; `set` writes another first. */
async function marker(path: string, set?: number): Promise<unknown> {
  const env = open({ path, maxDbs: 4 });
  try {
    const meta = env.openDB<unknown, string>('meta', {});
    if (set !== undefined) meta.putSync(STORE_FORMAT_KEY, set);
    return meta.get(STORE_FORMAT_KEY);
  } finally {
    await env.close();
  }
}

it("is marked with the release's format by its first write, not by reads, and opens after", async () => {
  const path = join(root, 'db');
  let store = createEmbeddedStore({ path });
  expect(await store.collection('jobs').findOne({ _id: 'x' })).toBeNull();
  await store.close();
  expect(await marker(path)).toBeUndefined();

  store = createEmbeddedStore({ path });
  await store.collection('jobs').insertOne({ _id: 'j1', status: 'running' });
  await store.close();
  expect(await marker(path)).toBe(STORE_FORMAT);

  store = createEmbeddedStore({ path });
  expect(await store.collection('jobs').findOne({ _id: 'j1' })).toEqual({ _id: 'j1', status: 'running' });
  await store.close();
});

it('moves an older marker on, and never back', async () => {
  const path = join(root, 'db');
  let store = createEmbeddedStore({ path });
  await store.collection('jobs').insertOne({ _id: 'j1' });
  await store.close();
  expect(await marker(path, 1)).toBe(1);
  store = createEmbeddedStore({ path });
  await store.collection('jobs').insertOne({ _id: 'j2' });
  await store.close();
  expect(await marker(path)).toBe(STORE_FORMAT);
});

it('refuses to open a store a newer release wrote, naming both formats', async () => {
  const path = join(root, 'db');
  const store = createEmbeddedStore({ path });
  await store.collection('jobs').insertOne({ _id: 'j1' });
  await store.close();
  await marker(path, STORE_FORMAT + 1);
  let refused: unknown;
  try {
    createEmbeddedStore({ path });
  } catch (err) {
    refused = err;
  }
  expect(refused).toMatchObject({
    code: 'STORE_FORMAT_NEWER',
    details: { path, format: STORE_FORMAT + 1, readable: STORE_FORMAT },
    message: expect.stringContaining('written by a newer release of NAP'),
  });
  // refused whole: the path is free to open again once the newer release is back
  await marker(path, STORE_FORMAT);
  const again = createEmbeddedStore({ path });
  expect(await again.collection('jobs').countDocuments({})).toBe(1);
  await again.close();
});

it('names a document of a format it does not know rather than failing on its text', async () => {
  const path = join(root, 'db');
  let store = createEmbeddedStore({ path });
  await store.collection('jobs').insertOne({ _id: 'j1' });
  await store.close();
  const env = open({ path, maxDbs: 4 });
  const docs = env.openDB<string, Buffer>('docs', { keyEncoding: 'binary', encoding: 'string' });
  for (const { key } of docs.getRange({})) docs.putSync(key, 'Z{"some":"future format"}');
  await env.close();
  store = createEmbeddedStore({ path });
  await expect(store.collection('jobs').findOne({ _id: 'j1' })).rejects.toMatchObject({
    code: 'STORE_FORMAT_NEWER',
    details: { documentFormat: 'Z' },
  });
  await store.close();
});
