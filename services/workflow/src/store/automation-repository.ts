import { AppError, hasCode } from '@nap/contracts';
import type { Collection, ListQuery, Store } from '@nap/store';
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

  async insertAutomation(doc: StoredAutomation): Promise<StoredAutomation> {
    try {
      return await this.automations.insertOne(doc);
    } catch (err) {
      return translateDuplicate(err, `An automation named "${doc.name}" (or with id "${doc._id}") exists`);
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

  async pageAutomations(query: ListQuery): Promise<{ items: StoredAutomation[]; total: number }> {
    const [items, total] = await Promise.all([
      this.automations.find(query.filter, { sort: query.sort, skip: query.skip, limit: query.limit }),
      this.automations.countDocuments(query.filter),
    ]);
    return { items, total };
  }

  /** Deletes an automation; 0 when there was none. */
  deleteAutomation(id: string): Promise<number> {
    return this.automations.deleteOne({ _id: id });
  }
}
