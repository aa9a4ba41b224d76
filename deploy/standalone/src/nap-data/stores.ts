import { readFile, rm, stat, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Doc, IndexSpec, ListedIndex, Store } from '@nap/store';
import type { Item } from './archive';
import { CollectionDigest, docToLine } from './doc-lines';
import { gatewayFilesOf, placeOf } from './gateway-files';
import type { GatewayFile, GatewayFiles } from './gateway-files';
import { databaseExists, openDatabase } from './locations';
import type { Location } from './locations';

/** Documents read from a store per request. */
const PAGE = 500;

/** The collections of a database that hold documents or indexes, in name order. */
async function collectionsOf(store: Store): Promise<string[]> {
  return (await store.listCollections()).sort();
}

/** Every document of a collection, in `_id` order, a page at a time. */
async function* pagesOf(store: Store, name: string): AsyncGenerator<Doc[]> {
  const collection = store.collection(name);
  let after: string | undefined;
  for (;;) {
    const page = await collection.find(after === undefined ? {} : { _id: { $gt: after } }, { sort: { _id: 1 }, limit: PAGE });
    if (page.length === 0) return;
    yield page;
    after = page[page.length - 1]?._id;
    if (page.length < PAGE) return;
  }
}

/** The count and digest of a collection as stored. */
export async function digestOf(store: Store, db: string, name: string): Promise<CollectionDigest> {
  const digest = new CollectionDigest();
  for await (const page of pagesOf(store, name)) for (const doc of page) digest.add(doc, `${db}.${name}`);
  return digest;
}

/**
 * The items of a location: each database named that exists there, each of its collections with
 * its indexes, documents and digest; then the device gateway's `files` (see {@link listGatewayFiles}).
 */
export async function* readLocation(
  location: Location,
  databases: readonly string[],
  options: { files: readonly GatewayFile[] },
): AsyncGenerator<Item> {
  for (const db of databases) {
    if (!databaseExists(location, db)) continue;
    const store = openDatabase(location, db);
    try {
      for (const name of await collectionsOf(store)) {
        yield { kind: 'collection', db, name, indexes: await store.collection(name).listIndexes() };
        const digest = new CollectionDigest();
        for await (const docs of pagesOf(store, name)) {
          const lines = docs.map((doc) => docToLine(doc, `${db}.${name}`));
          for (const line of lines) digest.addLine(line);
          yield { kind: 'docs', docs, lines };
        }
        yield { kind: 'end', db, name, count: digest.count, digest: digest.hex() };
      }
    } finally {
      await store.close();
    }
  }
  for (const file of options.files)
    yield { kind: 'file', path: file.path, mode: (await stat(file.full)).mode & 0o777, data: await readFile(file.full) };
}

/** Per database, the collections of a location that hold documents, with their counts. */
export async function documentsAt(
  location: Location,
  databases: readonly string[],
): Promise<{ db: string; name: string; count: number }[]> {
  const found: { db: string; name: string; count: number }[] = [];
  for (const db of databases) {
    if (!databaseExists(location, db)) continue;
    const store = openDatabase(location, db);
    try {
      for (const name of await collectionsOf(store)) {
        const count = await store.collection(name).countDocuments({});
        if (count > 0) found.push({ db, name, count });
      }
    } finally {
      await store.close();
    }
  }
  return found;
}

/** Deletes every document of the databases named (their indexes stay). */
export async function emptyDatabases(location: Location, databases: readonly string[]): Promise<void> {
  for (const db of databases) {
    if (!databaseExists(location, db)) continue;
    const store = openDatabase(location, db);
    try {
      for (const name of await collectionsOf(store)) await store.collection(name).deleteMany({});
    } finally {
      await store.close();
    }
  }
}

/**
 * The index as the target store can make it: MongoDB takes any; the embedded store refuses the
 * options only MongoDB has (partial, TTL, collation) and the index kinds it does not have (text,
 * hashed, 2dsphere). The services declare their own indexes again at start; only an operator's own
 * MongoDB indexes are left out.
 */
function indexFor(target: Location, index: ListedIndex): IndexSpec | undefined {
  const keys = index.keys;
  const plain = Object.values(keys).every((v) => v === 1 || v === -1);
  if (
    target.kind === 'dir' &&
    (!plain || index.partialFilterExpression !== undefined || index.expireAfterSeconds !== undefined || index.collation !== undefined)
  )
    return undefined;
  return index as IndexSpec;
}

/**
 * Writes items into a location whose databases hold no documents: indexes first, then documents in
 * batches; at the end of each collection reads it back and compares its count and digest with the
 * source's. The device gateway's files go where `files` keeps their kind ({@link placeOf}), never over an existing file. {@link undo} takes back what
 * was written.
 */
export class LocationWriter {
  private readonly stores = new Map<string, Store>();
  /** The collection being written, and the digest of what was inserted into it. */
  private current: { db: string; name: string; expected: CollectionDigest } | undefined;
  private readonly written = new Set<string>();
  private readonly filesWritten: string[] = [];
  /** What was left out, for the report. */
  readonly notes: string[] = [];
  /** Files not written: no directory is known for them (a MongoDB target without `--files-to`). */
  filesLeftOut = 0;

  constructor(
    private readonly target: Location,
    private readonly files: GatewayFiles | undefined,
  ) {}

  private storeOf(db: string): Store {
    let store = this.stores.get(db);
    if (store === undefined) {
      store = openDatabase(this.target, db);
      this.stores.set(db, store);
    }
    return store;
  }

  async write(item: Item): Promise<void> {
    switch (item.kind) {
      case 'collection': {
        this.current = { db: item.db, name: item.name, expected: new CollectionDigest() };
        this.written.add(`${item.db}\u0000${item.name}`);
        const specs: IndexSpec[] = [];
        for (const index of item.indexes) {
          const spec = indexFor(this.target, index);
          if (spec === undefined)
            this.notes.push(`index ${index.name} of ${item.db}.${item.name} left out: the embedded store has no index of its kind`);
          else specs.push(spec);
        }
        if (specs.length > 0) await this.storeOf(item.db).collection(item.name).createIndexes(specs);
        return;
      }
      case 'docs': {
        const at = this.current;
        if (at === undefined) throw new Error('documents come before their collection');
        await this.storeOf(at.db).collection(at.name).insertMany(item.docs);
        for (let i = 0; i < item.docs.length; i += 1)
          at.expected.addLine(item.lines?.[i] ?? docToLine(item.docs[i] as Doc, `${at.db}.${at.name}`));
        return;
      }
      case 'end': {
        // read back: the target holds what was written to it, and as many documents as the source
        const expected = this.current?.expected;
        const stored = await digestOf(this.storeOf(item.db), item.db, item.name);
        if (expected === undefined || stored.count !== item.count || stored.count !== expected.count || stored.hex() !== expected.hex())
          throw new Error(
            `${item.db}.${item.name} reads back ${stored.count} documents of digest ${stored.hex()} once written; ${item.count} were read of digest ${expected?.hex() ?? 'none'}`,
          );
        this.current = undefined;
        return;
      }
      case 'file': {
        const full = this.files === undefined ? undefined : placeOf(this.files, item.path);
        if (full === undefined) {
          this.filesLeftOut += 1;
          return;
        }
        await mkdir(path.dirname(full), { recursive: true });
        await writeFile(full, item.data, { flag: 'wx', mode: item.mode });
        this.filesWritten.push(full);
        return;
      }
    }
  }

  async close(): Promise<void> {
    for (const store of this.stores.values()) await store.close().catch(() => undefined);
    this.stores.clear();
  }

  /** Deletes the documents of every collection written to, and the files written. */
  async undo(): Promise<void> {
    for (const key of this.written) {
      const [db, name] = key.split('\u0000') as [string, string];
      await this.storeOf(db).collection(name).deleteMany({});
    }
    for (const file of this.filesWritten) await rm(file, { force: true });
    await this.close();
  }
}

/**
 * Where the device gateway's files go: under the data directory of the device gateway given
 * (`--files-to`, its `NAP_DATA_DIR`), else under the target's own when it is a data directory; the
 * kinds the environment moved (`NAP_GW_PLAYBOOKS_DIR`, …) to their directories.
 */
export function targetGatewayFiles(target: Location, gatewayDataDir: string | undefined, env: NodeJS.ProcessEnv): GatewayFiles {
  return gatewayFilesOf(gatewayDataDir ?? (target.kind === 'dir' ? target.dir : undefined), env);
}
