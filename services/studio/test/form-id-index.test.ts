import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbeddedStore, DeclaredIndexes } from '@nap/store';
import type { EmbeddedStore } from '@nap/store';
import { createLogger } from '@nap/telemetry';
import { FORM_ID_INDEX, STUDIO_COLLECTIONS, ensureCollections } from '../src/store/collections';

/**
 * The unique index on a form's `id` member, on a store that already holds forms sharing an id
 * (written before the index existed): the start goes on, nothing is changed, a warning names the
 * duplicates, and the index shows as missing until they are resolved; then it is made.
 */

let dir: string;
let store: EmbeddedStore;

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'nap-form-id-'));
  store = await createEmbeddedStore({ path: path.join(dir, 'db') });
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function capturingLogger(): { logger: ReturnType<typeof createLogger>; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    name: 'studio-test',
    level: 'warn',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, lines };
}

it('starts on forms that already share an id: the index is left unmade, the duplicates named, the data kept; made once they are resolved', async () => {
  const forms = store.collection('forms');
  await forms.insertMany([
    { _id: 'f1', name: 'Form one', id: 'ext-1' },
    { _id: 'f2', name: 'Form two', id: 'ext-1' },
    { _id: 'f3', name: 'Form three', id: 'ext-3' },
    { _id: 'f4', name: 'Form four' },
  ]);
  const { logger, lines } = capturingLogger();
  await ensureCollections(store, logger);

  const warning = lines.find((l) => l.index === FORM_ID_INDEX);
  expect(warning).toMatchObject({
    collection: 'forms',
    duplicates: [
      {
        value: ['ext-1'],
        documents: [
          { _id: 'f1', name: 'Form one' },
          { _id: 'f2', name: 'Form two' },
        ],
      },
    ],
  });
  expect(await forms.countDocuments({})).toBe(4);
  const indexes = new DeclaredIndexes(store, STUDIO_COLLECTIONS);
  const status = await indexes.status('forms');
  expect(status.missing.map((i) => i.name)).toEqual([FORM_ID_INDEX]);
  // the indexes of the other collections, and the other indexes of forms, were made
  expect(status.indexed.map((i) => i.name).sort()).toEqual(['groups_1', 'name_1']);
  expect((await indexes.status('workflows')).missing).toEqual([]);

  await forms.updateOne({ _id: 'f2' }, { $set: { id: 'ext-2' } });
  await ensureCollections(store, logger);
  expect((await indexes.status('forms')).missing).toEqual([]);
  await expect(forms.insertOne({ _id: 'f5', name: 'Form five', id: 'ext-3' })).rejects.toMatchObject({ code: 'STORE_DUPLICATE_KEY' });
  // forms without an id are not indexed: any number of them
  await forms.insertOne({ _id: 'f6', name: 'Form six' });
});
