import { assertBeforeDeadline, isAppError } from '@nap/contracts';
import type { RootDatabase } from 'lmdb';
import { errorMessage } from '@nap/util';
import type { Filter, FindOptions } from '../../types';
import { isKeyTooLongError, keyTooLong, storeUnavailable } from '../errors';
import { CATALOG_KEY, collectionDef, emptyCatalog, type Catalog } from './catalog';
import { countQuery, runQuery, type QueryStats, type StoreDbs } from './query-exec';
import { WriteTxn, type WriteDbs } from './write-txn';

/** A write waiting for the next batch. */
interface QueuedWrite {
  run: (txn: WriteTxn) => unknown;
  abortable: boolean;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
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
  ) {
    this.dbs = {
      meta: root.openDB<unknown, string>('meta', {}),
      docs: root.openDB<string, Buffer>('docs', { keyEncoding: 'binary', encoding: 'string' }),
      idx: root.openDB<Buffer, Buffer>('idx', { keyEncoding: 'binary', encoding: 'binary' }),
    };
  }

  /**
   * The committed catalog, decoded once and kept until the next write commits: reads are the hot
   * path and the catalog changes only with writes. Writes read it inside their transaction.
   */
  private committedCatalog: Catalog | undefined;

  private catalog(): Catalog {
    const stored = this.dbs.meta.get(CATALOG_KEY) as Catalog | undefined;
    return stored ?? emptyCatalog();
  }

  private readCatalog(): Catalog {
    return (this.committedCatalog ??= this.catalog());
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

  private async commitBatch(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      await this.root.transaction(() => {
        // the catalog as the batch's writes leave it; read again after a write that failed
        let catalog: Catalog | undefined;
        for (const write of batch) {
          try {
            const run = () => {
              const txn = new WriteTxn(this.dbs, catalog ?? this.catalog());
              const out = write.run(txn);
              txn.finish();
              catalog = txn.catalog;
              return out;
            };
            outcomes.push({ ok: true, value: write.abortable ? this.root.childTransaction(run) : run() });
          } catch (e) {
            catalog = undefined;
            outcomes.push({ ok: false, value: e });
          }
        }
      });
      await this.root.flushed;
    } catch (e) {
      this.committedCatalog = undefined;
      for (const write of batch) write.reject(this.translate(e));
      return;
    }
    this.committedCatalog = undefined;
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
