import { AppError, hasCode } from '@nap/contracts';
import type { Collection, ListQuery, Store } from '@nap/store';
import type { Caller } from '@nap/contracts';
import { assertAutomationAccess, automationVisibilityFilter } from '../domain/automations';
import type { StoredAutomation, StoredCatalogAutomation } from '../domain/automations';

/** Rethrows a duplicate key as 409 AUTOMATION_ALREADY_EXISTS with `message`; anything else as it is. */
function translateDuplicate(err: unknown, message: string): never {
  if (hasCode(err, 'STORE_DUPLICATE_KEY')) throw new AppError('AUTOMATION_ALREADY_EXISTS', message, { cause: err });
  throw err;
}

/**
 * The `automations` (operations manager) and `catalog_automations` (automation catalog) collections;
 * names are unique in each: both inserts fail with 409 AUTOMATION_ALREADY_EXISTS for a name or id in use.
 */
export class AutomationRepository {
  private readonly automations: Collection<StoredAutomation>;
  private readonly catalog: Collection<StoredCatalogAutomation>;

  constructor(store: Store) {
    this.automations = store.collection<StoredAutomation>('automations');
    this.catalog = store.collection<StoredCatalogAutomation>('catalog_automations');
  }

  /**
   * Stores a new automation; 409 AUTOMATION_ALREADY_EXISTS naming the one in the way: its id (or,
   * for an id in use, its name) only when `mayRead` says the caller may read it, so that a clash
   * tells nobody more of an automation than its name or id they gave.
   */
  async insertAutomation(doc: StoredAutomation, mayRead: (existing: StoredAutomation) => boolean = () => true): Promise<StoredAutomation> {
    try {
      return await this.automations.insertOne(doc);
    } catch (err) {
      if (!hasCode(err, 'STORE_DUPLICATE_KEY')) throw err;
      // name the automation in the way: the one with this name, else the one with this id
      const existing =
        (await this.automations.findOne({ name: doc.name }).catch(() => null)) ??
        (await this.automations.findOne({ _id: doc._id }).catch(() => null));
      const shown = existing !== null && mayRead(existing);
      return translateDuplicate(
        err,
        existing === null
          ? `An automation named "${doc.name}" or with id "${doc._id}" exists`
          : existing.name === doc.name
            ? `An automation named "${doc.name}" exists${shown ? ` (id "${existing._id}")` : ''}`
            : `An automation with id "${doc._id}" exists${shown ? ` (named "${existing.name}")` : ''}`,
      );
    }
  }

  /**
   * Replaces the automation `previous` by `doc` if it is still as `previous` was read (same
   * `lastUpdated`): the stored one, `'changed'` when it changed meanwhile (read it again and redo the
   * change), null when it is gone; 409 AUTOMATION_ALREADY_EXISTS naming the automation that has its
   * name (its id only when `mayRead` says the caller may read it).
   */
  async replaceAutomation(
    doc: StoredAutomation,
    previous: StoredAutomation,
    mayRead: (existing: StoredAutomation) => boolean = () => true,
  ): Promise<StoredAutomation | 'changed' | null> {
    try {
      const { matchedCount } = await this.automations.replaceOne({ _id: doc._id, lastUpdated: previous.lastUpdated ?? null }, doc);
      if (matchedCount > 0) return doc;
      return (await this.automations.findOne({ _id: doc._id }, { projection: { _id: 1 } })) === null ? null : 'changed';
    } catch (err) {
      if (!hasCode(err, 'STORE_DUPLICATE_KEY')) throw err;
      const existing = await this.automations.findOne({ name: doc.name }).catch(() => null);
      return translateDuplicate(
        err,
        existing === null || !mayRead(existing)
          ? `An automation named "${doc.name}" exists`
          : `An automation named "${doc.name}" exists (id "${existing._id}")`,
      );
    }
  }

  async insertCatalogAutomation(doc: StoredCatalogAutomation): Promise<StoredCatalogAutomation> {
    try {
      return await this.catalog.insertOne(doc);
    } catch (err) {
      return translateDuplicate(err, `An automation named "${doc.name}" (or with id "${doc._id}") exists in the catalog`);
    }
  }

  findAutomation(id: string): Promise<StoredAutomation | null> {
    return this.automations.findOne({ _id: id });
  }

  /** The automation with this id; 404 AUTOMATION_NOT_FOUND otherwise. */
  async getAutomation(id: string): Promise<StoredAutomation> {
    const found = await this.findAutomation(id);
    if (found === null) throw new AppError('AUTOMATION_NOT_FOUND', `No automation with id "${id}"`);
    return found;
  }

  /** The automation with this id if the caller may read (`read`) or change it (`write`): 404 AUTOMATION_NOT_FOUND, 403 GROUP_ACCESS_DENIED. */
  async accessibleAutomation(id: string, caller: Caller, mode: 'read' | 'write'): Promise<StoredAutomation> {
    const found = await this.getAutomation(id);
    assertAutomationAccess(found, caller, mode);
    return found;
  }

  /** The ids of the automations `caller` may read; undefined for a caller who reads them all (admins). */
  async visibleAutomationIds(caller: Caller): Promise<string[] | undefined> {
    const visible = automationVisibilityFilter(caller);
    if (visible === undefined) return undefined;
    return (await this.automations.find(visible, { projection: { _id: 1 } })).map((a) => a._id);
  }

  /** A page of the automations `caller` may read. */
  async pageAutomations(query: ListQuery, caller: Caller): Promise<{ items: StoredAutomation[]; total: number }> {
    const visible = automationVisibilityFilter(caller);
    const filter = visible === undefined ? query.filter : { $and: [query.filter, visible] };
    const [items, total] = await Promise.all([
      this.automations.find(filter, { sort: query.sort, skip: query.skip, limit: query.limit }),
      this.automations.countDocuments(filter),
    ]);
    return { items, total };
  }

  /** Deletes an automation; 0 when there was none. */
  deleteAutomation(id: string): Promise<number> {
    return this.automations.deleteOne({ _id: id });
  }
}
