import { statfsSync } from 'node:fs';
import { assertBeforeDeadline, isAppError } from '../contracts';
import type { AppError } from '../contracts';
import type { RootDatabase } from 'lmdb';
import { errorMessage } from '@nap/util';
import type { DiskSpace, Filter, FindOptions } from '../../types';
import { isKeyTooLongError, keyTooLong, storeFull, storeUnavailable } from '../errors';
import { CATALOG_GENERATION_KEY, CATALOG_KEY, collectionDef, emptyCatalog, type Catalog } from './catalog';
import { countQuery, runQuery, type QueryStats, type StoreDbs } from './query-exec';
import { STORE_FORMAT, STORE_FORMAT_KEY, assertReadableFormat, formatBehind } from './store-format';
import { WriteTxn, type WriteDbs } from './write-txn';

/** What a queued write runs once it ran: nothing. */
const SPENT = (): undefined => undefined;

/** A write waiting for the next batch. */
interface QueuedWrite {
  run: (txn: WriteTxn) => unknown;
  abortable: boolean;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

/** How long a reading of the disk's free space is trusted, ms. */
const FREE_SPACE_READ_MS = 250;

function mebibytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === 'function';
}

/** LMDB's error numbers: an I/O error, no space left on the device, its map full and unable to grow. */
const EIO = 5;
const ENOSPC = 28;
const MDB_MAP_FULL = -30792;
/** Free space under which an I/O error of a commit is taken for a full disk. */
const NEARLY_FULL_BYTES = 1024 * 1024;

function errnoOf(e: unknown): unknown {
  return (e as { code?: unknown } | undefined)?.code;
}

/** ENOSPC from LMDB's writer, or its map full and unable to grow. */
function isNoSpace(e: unknown): boolean {
  const code = errnoOf(e);
  return code === ENOSPC || code === 'ENOSPC' || code === MDB_MAP_FULL || /no space left|MDB_MAP_FULL/i.test(errorMessage(e));
}

/** Adds document count changes (by collection name) to a catalog; answers it. */
function applyCounts(catalog: Catalog, counts: ReadonlyMap<string, number>): Catalog {
  for (const [name, by] of counts) {
    const collection = collectionDef(catalog, name);
    if (collection) collection.count += by;
  }
  return catalog;
}

/**
 * The store's engine, shared by its collections: LMDB databases, the catalog, and the read and
 * write paths with error translation.
 */
export class EmbeddedEngine {
  private closed = false;
  readonly dbs: WriteDbs;

  constructor(
    readonly path: string,
    private readonly root: RootDatabase,
    private readonly onClose: () => void,
    /** Free space the disk keeps: a batch that would start with less is refused (0: no check). */
    private readonly minFreeBytes = 0,
  ) {
    this.dbs = {
      meta: root.openDB<unknown, string>('meta', {}),
      docs: root.openDB<string, Buffer>('docs', { keyEncoding: 'binary', encoding: 'string' }),
      idx: root.openDB<Buffer, Buffer>('idx', { keyEncoding: 'binary', encoding: 'binary' }),
    };
    const format = this.dbs.meta.get(STORE_FORMAT_KEY);
    assertReadableFormat(path, format);
    this.formatKept = !formatBehind(format);
  }

  /** Whether the store's format marker is this release's (else the next write batch moves it on). */
  private formatKept: boolean;

  /**
   * The committed catalog, decoded once and kept until the next write commits: reads are the hot
   * path and the catalog changes only with writes. Writes read it inside their transaction.
   */
  private committedCatalog: Catalog | undefined;
  /** The generation of {@link committedCatalog}: another thread's write (the admin service's audit thread shares its store) moves it on. */
  private committedGeneration = 0;

  private catalog(): Catalog {
    const stored = this.dbs.meta.get(CATALOG_KEY) as Catalog | undefined;
    return stored ?? emptyCatalog();
  }

  private generation(): number {
    return (this.dbs.meta.get(CATALOG_GENERATION_KEY) as number | undefined) ?? 0;
  }

  /** The catalog of the snapshot reads see: the one kept, unless a write of another thread of the process moved it on. */
  private readCatalog(): Catalog {
    const generation = this.generation();
    if (this.committedCatalog === undefined || generation !== this.committedGeneration) {
      this.committedCatalog = this.catalog();
      this.committedGeneration = generation;
    }
    return this.committedCatalog;
  }

  private assertOpen(): void {
    if (this.closed) throw storeUnavailable(`The embedded store at "${this.path}" is closed`);
  }

  private translate(e: unknown): unknown {
    if (isAppError(e)) return e;
    if (this.closed) return storeUnavailable(`The embedded store at "${this.path}" is closed`, e);
    if (isKeyTooLongError(e)) return keyTooLong('An id or indexed value', { cause: e });
    // Programming errors stay what they are; LMDB reports I/O and environment failures as Error.
    if (e instanceof RangeError || e instanceof TypeError || e instanceof SyntaxError) return e;
    return storeUnavailable(`The embedded store at "${this.path}" failed: ${errorMessage(e)}`, e);
  }

  /**
   * What a failed commit tells its writers. LMDB rejects the batch with "Commit failed" and keeps
   * the reason in a second promise, `commitError`, which must be read (left alone, its rejection
   * ends the process): a full disk (ENOSPC, or a map that cannot grow) is `STORE_FULL`, anything
   * else `STORE_UNAVAILABLE` with LMDB's reason.
   */
  private async commitFailure(e: unknown): Promise<unknown> {
    const reason = (e as { commitError?: unknown } | undefined)?.commitError;
    const cause = isThenable(reason)
      ? await Promise.resolve(reason).then(
          () => e,
          (c: unknown) => c,
        )
      : e;
    // LMDB reports a page write that fails after another failed for want of space as EIO
    if (isNoSpace(cause) || (errnoOf(cause) === EIO && this.freeBytesNow() < Math.max(this.minFreeBytes, NEARLY_FULL_BYTES))) {
      // LMDB out of space may keep part of a failed commit: this write is not known to be undone
      this.free.readAt = Number.NEGATIVE_INFINITY;
      return storeFull(
        `The disk under the embedded store at "${this.path}" is full (${errorMessage(cause).split(':')[0]}): the write failed and part of it may be kept; read before writing again`,
        { nothingWritten: false },
        cause,
      );
    }
    return this.translate(cause);
  }

  /** Runs `fn` against the current snapshot, synchronously. */
  async read<R>(fn: (dbs: StoreDbs, catalog: Catalog) => R): Promise<R> {
    this.assertOpen();
    // reads run synchronously: bounded by refusing to start past the request's deadline
    assertBeforeDeadline(`A read of the embedded store`);
    try {
      return fn(this.dbs, this.readCatalog());
    } catch (e) {
      throw this.translate(e);
    }
  }

  /**
   * Group commit: every write of one turn of the event loop runs in one LMDB write transaction, one
   * after the other (so nothing interleaves between a write's reads and its writes), and the whole
   * batch is committed and flushed to disk once; each write resolves only after that flush, so an
   * acknowledged write survives a crash or kill -9. A write that may fail after it wrote part of its
   * changes (`abortable`: many documents, index builds) runs in a nested transaction that is rolled
   * back if it throws; a single-document write checks everything before it writes its first key, so
   * it needs none. One failed write does not fail the others of its batch.
   */
  async write<R>(fn: (txn: WriteTxn) => R, options: { abortable?: boolean } = {}): Promise<R> {
    this.assertOpen();
    // a write that started is not abandoned half-way (it commits with its batch); one that has not started past the deadline is refused
    assertBeforeDeadline(`A write to the embedded store`);
    const pending = new Promise<R>((resolve, reject) => {
      this.queue.push({
        run: fn as (txn: WriteTxn) => unknown,
        abortable: options.abortable ?? true,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
    });
    if (this.queue.length === 1) setImmediate(() => void this.commitBatch());
    return pending;
  }

  private queue: QueuedWrite[] = [];

  /** The disk's free space as last read, and when: read again at most every {@link FREE_SPACE_READ_MS}. */
  private free = { bytes: Number.POSITIVE_INFINITY, readAt: Number.NEGATIVE_INFINITY };

  /** Reads the disk's free space (infinite when it cannot be read: the check then lets writes through). */
  private freeBytesNow(): number {
    return this.diskSpace()?.freeBytes ?? Number.POSITIVE_INFINITY;
  }

  /** The disk under the store as `statfs` reads it now (undefined when it cannot be read); the write check takes the reading too. */
  diskSpace(): DiskSpace | undefined {
    let space: DiskSpace | undefined;
    try {
      const stats = statfsSync(this.path, { bigint: true });
      space = {
        freeBytes: Number(stats.bavail * stats.bsize),
        totalBytes: Number(stats.blocks * stats.bsize),
        minFreeBytes: this.minFreeBytes,
      };
    } catch {
      // no reading: LMDB's own error tells when the disk is full
    }
    this.free = { bytes: space?.freeBytes ?? Number.POSITIVE_INFINITY, readAt: Date.now() };
    return space;
  }

  /**
   * The refusal of a batch when the disk has less free space than the store keeps, before LMDB
   * writes anything; undefined when there is room (or no check, or the free space cannot be read).
   */
  private lowOnSpace(): AppError | undefined {
    if (this.minFreeBytes <= 0) return undefined;
    const now = Date.now();
    if (now - this.free.readAt >= FREE_SPACE_READ_MS) this.freeBytesNow();
    if (this.free.bytes >= this.minFreeBytes) return undefined;
    return storeFull(
      `The disk under the embedded store at "${this.path}" has ${mebibytes(this.free.bytes)} free, less than the ${mebibytes(this.minFreeBytes)} it keeps (NAP_DATA_MIN_FREE_MB); nothing of the write was kept. Free space on that disk: writes go on by themselves`,
      { nothingWritten: true, freeBytes: this.free.bytes, minFreeBytes: this.minFreeBytes },
    );
  }

  private async commitBatch(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    const refusal = this.lowOnSpace();
    if (refusal !== undefined) {
      for (const write of batch) write.reject(refusal);
      return;
    }
    const outcomes: { ok: boolean; value: unknown }[] = [];
    // the catalog as the batch's writes leave it, for the reads that follow, and its generation
    let committed: Catalog | undefined;
    let generation = 0;
    try {
      await this.root.transaction(() => {
        // the catalog as the batch's writes leave it; read again after a write that failed
        let catalog: Catalog | undefined;
        // document counts changed by the writes that succeeded since the catalog was last written:
        // written once, at the end of the batch, rather than the whole catalog for every insert
        const counts = new Map<string, number>();
        let catalogWritten = false;
        for (const write of batch) {
          try {
            const txn = new WriteTxn(this.dbs, catalog ?? applyCounts(this.catalog(), counts));
            let wroteCatalog = false;
            const run = () => {
              const out = write.run(txn);
              wroteCatalog = txn.finish();
              return out;
            };
            outcomes.push({ ok: true, value: write.abortable ? this.root.childTransaction(run) : run() });
            // the catalog written by the operation holds every count so far, its own included
            catalogWritten ||= wroteCatalog;
            if (wroteCatalog) counts.clear();
            else for (const [name, by] of txn.countChanges) counts.set(name, (counts.get(name) ?? 0) + by);
            catalog = txn.catalog;
          } catch (e) {
            // the failed write may have changed the catalog object: read it again (its own count changes were never added)
            catalog = undefined;
            outcomes.push({ ok: false, value: e });
          }
        }
        if (counts.size > 0) {
          catalog ??= applyCounts(this.catalog(), counts);
          this.dbs.meta.putSync(CATALOG_KEY, catalog);
          catalogWritten = true;
        }
        generation = this.generation();
        if (catalogWritten) this.dbs.meta.putSync(CATALOG_GENERATION_KEY, ++generation);
        if (!this.formatKept && formatBehind(this.dbs.meta.get(STORE_FORMAT_KEY))) this.dbs.meta.putSync(STORE_FORMAT_KEY, STORE_FORMAT);
        committed = catalog;
      });
      // the operations ran: what they hold (documents, filters, updates) need not live through the
      // flush, the longest wait of a write; under load it lived long enough to reach the old generation
      for (const write of batch) write.run = SPENT;
      await this.root.flushed;
    } catch (e) {
      this.committedCatalog = undefined;
      const error = await this.commitFailure(e);
      for (const write of batch) write.reject(error);
      return;
    }
    this.formatKept = true;
    // the batch's own catalog when it ended on a write that succeeded; read again otherwise
    this.committedCatalog = committed;
    this.committedGeneration = generation;
    batch.forEach((write, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) write.resolve(outcome.value);
      else write.reject(this.translate(outcome?.value));
    });
  }

  async ping(): Promise<void> {
    await this.read(() => undefined);
  }

  async listCollections(): Promise<string[]> {
    return this.read((_, catalog) => Object.keys(catalog.collections).sort());
  }

  async explain(collection: string, filter?: Filter, options: FindOptions = {}): Promise<QueryStats> {
    return this.read((dbs, catalog) => {
      const stats: QueryStats = { plan: 'empty', sortedByIndex: false, keysExamined: 0, docsExamined: 0, returned: 0 };
      runQuery(dbs, collectionDef(catalog, collection), filter, options, stats);
      return stats;
    });
  }

  async explainCount(collection: string, filter?: Filter, options: { limit?: number } = {}): Promise<QueryStats> {
    return this.read((dbs, catalog) => {
      const stats: QueryStats = { plan: 'empty', sortedByIndex: false, keysExamined: 0, docsExamined: 0, returned: 0 };
      countQuery(dbs, collectionDef(catalog, collection), filter, options.limit, stats);
      return stats;
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onClose();
    await this.root.close();
  }
}
