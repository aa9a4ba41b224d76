import { AppError, hasCode } from '@nap/contracts';
import type { ListQueryOptions, PrebuiltComponent, PrebuiltRecord } from '@nap/contracts';
import { MAX_LIST_LIMIT, toListQuery } from '@nap/store';
import type { Collection, Store } from '@nap/store';

/** An installed prebuilt as stored; while an installation runs, `installing` is set and the record is its journal. */
export type PrebuiltDoc = PrebuiltRecord & { _id: string; installing?: { startedAt: number } };

/** The `prebuilts` collection (unique `metadata.name`, declared in `collections.ts`). */
export class PrebuiltRepository {
  private readonly prebuilts: Collection<PrebuiltDoc>;

  constructor(store: Store) {
    this.prebuilts = store.collection<PrebuiltDoc>('prebuilts');
  }

  /** A page of the installed prebuilts (installations under way left out). */
  async list(query: ListQueryOptions): Promise<{ results: PrebuiltDoc[]; total: number }> {
    const q = toListQuery(query, {
      filter: ['metadata.name', 'metadata.version', 'metadata.description'],
      sort: ['metadata.name', 'metadata.version', 'installed'],
      defaultSort: { 'metadata.name': 1 },
      // every one when no limit is given (ipctl reads this list in one request)
      defaultLimit: MAX_LIST_LIMIT,
    });
    const filter = { $and: [q.filter, { installing: { $exists: false } }] };
    const [results, total] = await Promise.all([
      this.prebuilts.find(filter, { sort: q.sort, skip: q.skip, limit: q.limit }),
      this.prebuilts.countDocuments(filter),
    ]);
    return { results, total };
  }

  /** An installed prebuilt; 404 `PREBUILT_NOT_FOUND` (also while it is being installed). */
  async installed(id: string): Promise<PrebuiltDoc> {
    const found = await this.prebuilts.findOne({ _id: id, installing: { $exists: false } });
    if (found === null) throw new AppError('PREBUILT_NOT_FOUND', `No installed prebuilt with id "${id}"`);
    return found;
  }

  /** The installed prebuilt of a package name, if any (what the repository listing shows next to each package). */
  async installedByName(name: string): Promise<{ id: string; version: string } | null> {
    const found = await this.prebuilts.findOne({ 'metadata.name': name, installing: { $exists: false } });
    return found === null ? null : { id: found._id, version: found.metadata.version };
  }

  /** Every installed prebuilt's package name and version (what a package's IAPDependencies may name). */
  async installedVersions(): Promise<Map<string, string>> {
    const docs = await this.prebuilts.find(
      { installing: { $exists: false } },
      { projection: { 'metadata.name': 1, 'metadata.version': 1 } },
    );
    return new Map(docs.map((d) => [d.metadata.name, d.metadata.version]));
  }

  /** The prebuilt of a package name, installed or being installed. */
  findByName(name: string): Promise<PrebuiltDoc | null> {
    return this.prebuilts.findOne({ 'metadata.name': name });
  }

  /** The prebuilt that created the artifact of that id, if any. */
  ownerOf(artifactId: string): Promise<PrebuiltDoc | null> {
    return this.prebuilts.findOne({ 'components.id': artifactId });
  }

  /** Installations of the package that began before `startedBefore` (epoch ms) and never finished. */
  unfinished(name: string, startedBefore: number): Promise<PrebuiltDoc[]> {
    return this.prebuilts.find({ 'metadata.name': name, 'installing.startedAt': { $lt: startedBefore } });
  }

  /** Stores the journal of a new installation under a fresh id (the one given is left out); the id. 409 `PREBUILT_ALREADY_EXISTS` when the package is installed. */
  async begin(record: PrebuiltDoc): Promise<string> {
    const { _id: _none, ...fresh } = record;
    try {
      return (await this.prebuilts.insertOne(fresh))._id;
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY'))
        throw new AppError(
          'PREBUILT_ALREADY_EXISTS',
          `A prebuilt named ${record.metadata.name} is installed; upgrade it with PUT /prebuilts/:id`,
          { cause: err },
        );
      throw err;
    }
  }

  /** Records the artifacts a prebuilt holds so far. */
  async setComponents(id: string, components: PrebuiltComponent[]): Promise<void> {
    await this.prebuilts.updateOne({ _id: id }, { $set: { components } });
  }

  /** Ends an installation: its artifacts recorded, the record an installed prebuilt. */
  async finish(id: string, components: PrebuiltComponent[]): Promise<void> {
    await this.prebuilts.updateOne({ _id: id }, { $set: { components }, $unset: { installing: '' } });
  }

  async replace(record: PrebuiltDoc): Promise<void> {
    await this.prebuilts.replaceOne({ _id: record._id }, record);
  }

  async delete(id: string): Promise<void> {
    await this.prebuilts.deleteOne({ _id: id });
  }
}
