import type { Collection, Store } from '@nap/store';
import { chunkId } from '../domain/job-archive';
import type { ArchiveChunkRecord } from '../domain/job-archive';

/**
 * The `job_archive_chunks` collection: the compressed file of each archive in parts of at most
 * 512 KiB, GridFS-like, so that archives live in the workflow store (the embedded store in
 * standalone, MongoDB in distributed mode) and every replica reads the same file. Parts are keyed
 * `<batch id>:<part>`: ids in order are the file in order, and writing a batch's parts again
 * (a replica that took over) replaces them rather than adding to them.
 */
export class ArchiveChunkRepository {
  private readonly chunks: Collection<ArchiveChunkRecord>;

  constructor(store: Store) {
    this.chunks = store.collection<ArchiveChunkRecord>('job_archive_chunks');
  }

  /** Stores part `part` of batch `batch` (replacing it when it was written before). */
  async put(archive: string, batch: string, part: number, data: Uint8Array): Promise<void> {
    const id = chunkId(batch, part);
    await this.chunks.replaceOne({ _id: id }, { _id: id, archive, batch, data }, { upsert: true });
  }

  /** Removes the parts of batch `batch` from part `from` on (left by an earlier writing of the batch that made more parts). */
  async dropFrom(batch: string, from: number): Promise<void> {
    await this.chunks.deleteMany({ batch, _id: { $gte: chunkId(batch, from) } });
  }

  /** Removes every part of an archive's file; answers how many there were. */
  async dropArchive(archive: string): Promise<number> {
    return this.chunks.deleteMany({ _id: { $gt: `${archive}:`, $lt: `${archive};` } });
  }

  /** The parts of an archive's file after part id `after` (from the first without it), in file order, at most `limit`. */
  after(archive: string, after: string | undefined, limit: number): Promise<ArchiveChunkRecord[]> {
    return this.chunks.find({ _id: { $gt: after ?? `${archive}:`, $lt: `${archive};` } }, { sort: { _id: 1 }, limit });
  }
}
