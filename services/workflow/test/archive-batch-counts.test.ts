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

it('adds up the metric sums of the batches done per visibility, and reads them again only once another batch is done', async () => {
  const sums = (workflow: string, complete: number, total: number) => ({
    jobs: [{ workflow, counts: { complete }, durations: { total, count: complete, min: 1, max: total }, lastStarted: complete }],
    tasks: [],
  });
  const withSums = (phase: ArchiveBatchRecord['phase'], entries: unknown[]) =>
    ({ ...batch(phase, {}), sums: entries }) as ArchiveBatchRecord;
  await batches.insertMany([
    withSums('done', [
      { groups: ['g1'], ...sums('flow', 2, 10) },
      { groups: [], metrics: { owner: 'ann' }, ...sums('flow', 1, 5) },
    ]),
    withSums('done', [{ groups: ['g1'], ...sums('flow', 3, 30) }]),
    withSums('written', [{ groups: ['g1'], ...sums('flow', 4, 40) }]),
  ]);
  const merged = await repository.doneSumsMerged();
  expect(merged).toEqual([
    {
      groups: ['g1'],
      jobs: [{ workflow: 'flow', counts: { complete: 5 }, durations: { total: 40, count: 5, min: 1, max: 30 }, lastStarted: 3 }],
      tasks: [],
    },
    {
      groups: [],
      metrics: { owner: 'ann' },
      jobs: [{ workflow: 'flow', counts: { complete: 1 }, durations: { total: 5, count: 1, min: 1, max: 5 }, lastStarted: 1 }],
      tasks: [],
    },
  ]);
  const readsThen = reads.length;
  expect(await repository.doneSumsMerged()).toEqual(merged);
  expect(reads).toHaveLength(readsThen);

  await batches.updateOne({ phase: 'written' }, { $set: { phase: 'done' } });
  const later = await repository.doneSumsMerged();
  expect(reads.length).toBeGreaterThan(readsThen);
  expect(later[0]?.jobs[0]?.counts).toEqual({ complete: 9 });
});
