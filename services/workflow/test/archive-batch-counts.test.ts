/**
 * What archived jobs add to the `nap_jobs` gauge is read from the batches done only when more
 * batches are done: a scrape costs a count of the phase index, not a read of the whole archive
 * history.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbeddedStore } from '@nap/store';
import type { Collection, EmbeddedStore } from '@nap/store';
import type { ArchiveBatchRecord } from '../src/domain/job-archive';
import { ArchiveBatchRepository } from '../src/store/archive-batch-repository';
import { ensureCollections } from '../src/store/collections';

let root: string;
let store: EmbeddedStore;
let batches: Collection<ArchiveBatchRecord>;
let repository: ArchiveBatchRepository;
/** The filters of the batch reads (find) the repository made. */
let reads: unknown[];

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'nap-archive-counts-'));
  store = createEmbeddedStore({ path: join(root, 'workflow') });
  await ensureCollections(store);
  batches = store.collection<ArchiveBatchRecord>('job_archive_batches');
  reads = [];
  const find = batches.find.bind(batches);
  jest.spyOn(batches, 'find').mockImplementation((filter, options) => {
    reads.push(filter);
    return find(filter, options);
  });
  // the repository takes the collection from the store: hand it the one watched
  jest.spyOn(store, 'collection').mockReturnValue(batches as never);
  repository = new ArchiveBatchRepository(store);
});

afterEach(async () => {
  jest.restoreAllMocks();
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

let serial = 0;
function batch(phase: ArchiveBatchRecord['phase'], statusCounts: Record<string, number>): ArchiveBatchRecord {
  serial++;
  return {
    _id: `archive-1:${String(serial).padStart(6, '0')}`,
    archive: 'archive-1',
    seq: serial,
    phase,
    families: [],
    cursorAfter: { endTime: 0, id: '' },
    statusCounts,
  } as unknown as ArchiveBatchRecord;
}

it('reads the batches done again only once another batch is done', async () => {
  await batches.insertMany([batch('done', { complete: 3, error: 1 }), batch('done', { complete: 2 }), batch('written', { complete: 9 })]);
  expect(await repository.doneStatusCounts()).toEqual({ complete: 5, error: 1 });
  expect(reads).toHaveLength(1);

  // scrapes with nothing new done read no batch
  for (let i = 0; i < 5; i++) expect(await repository.doneStatusCounts()).toEqual({ complete: 5, error: 1 });
  expect(reads).toHaveLength(1);

  // the batch written before is done now: read again, and counted
  await batches.updateOne({ phase: 'written' }, { $set: { phase: 'done' } });
  expect(await repository.doneStatusCounts()).toEqual({ complete: 14, error: 1 });
  expect(reads).toHaveLength(2);

  // what a caller does with the answer is not the cache's
  const answer = await repository.doneStatusCounts();
  answer.complete = 0;
  expect(await repository.doneStatusCounts()).toEqual({ complete: 14, error: 1 });
});
