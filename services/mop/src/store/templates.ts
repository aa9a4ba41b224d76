import { AppError, hasCode } from '@nap/contracts';
import type { Collection, Doc, Store } from '@nap/store';
import { escapeRegex, nextFreeName } from '../domain/names';
import { COLLECTIONS } from './collections';

/** Which kind of template a repository holds. */
export type TemplateKind = 'template' | 'analytic';

type TemplateDoc = Doc & { name: string };

/** Members the service owns; the rest of a template is stored as given. */
const OWNED = ['_id', 'created', 'createdBy', 'lastUpdated', 'lastUpdatedBy'] as const;

function content(doc: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) if (!(OWNED as readonly string[]).includes(key)) out[key] = value;
  return out;
}

/** Command or analytic templates: unique names, authorship set by the service. */
export class TemplateRepository<T extends { name: string }> {
  private readonly collection: Collection<TemplateDoc>;

  constructor(
    store: Store,
    readonly kind: TemplateKind,
  ) {
    this.collection = store.collection<TemplateDoc>(kind === 'template' ? COLLECTIONS.templates : COLLECTIONS.analyticTemplates);
  }

  private get label(): string {
    return this.kind === 'template' ? 'command template' : 'analytic template';
  }

  private duplicate(name: string, err: unknown): AppError {
    return new AppError('TEMPLATE_ALREADY_EXISTS', `A ${this.label} named "${name}" exists; choose another name`, { cause: err });
  }

  async create(doc: Record<string, unknown> & { name: string }, username: string): Promise<T> {
    const now = Date.now();
    try {
      return (await this.collection.insertOne({ ...content(doc), name: doc.name, created: now, createdBy: username, lastUpdated: now, lastUpdatedBy: username })) as unknown as T;
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY')) throw this.duplicate(doc.name, err);
      throw err;
    }
  }

  /** Replaces the template with id `id`; created and createdBy are kept. */
  async update(id: string, doc: Record<string, unknown> & { name: string }, username: string): Promise<T> {
    const existing = await this.collection.findOne({ _id: id });
    if (existing === null) throw new AppError('TEMPLATE_NOT_FOUND', `No ${this.label} has id "${id}"`);
    const next = { ...content(doc), name: doc.name, created: existing.created, createdBy: existing.createdBy, lastUpdated: Date.now(), lastUpdatedBy: username };
    try {
      await this.collection.replaceOne({ _id: id }, next);
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY')) throw this.duplicate(doc.name, err);
      throw err;
    }
    return { _id: id, ...next } as unknown as T;
  }

  async delete(id: string): Promise<T> {
    const gone = await this.collection.findOneAndDelete({ _id: id });
    if (gone === null) throw new AppError('TEMPLATE_NOT_FOUND', `No ${this.label} has id "${id}"`);
    return gone as unknown as T;
  }

  async list(): Promise<T[]> {
    return (await this.collection.find({}, { sort: { name: 1 } })) as unknown as T[];
  }

  async findByName(name: string): Promise<T | null> {
    return (await this.collection.findOne({ name })) as unknown as T | null;
  }

  async getByName(name: string): Promise<T> {
    const found = await this.findByName(name);
    if (found === null) throw new AppError('TEMPLATE_NOT_FOUND', `No ${this.label} is named "${name}"`);
    return found;
  }

  /** By id, or by name when no id matches. */
  async getByIdOrName(key: string): Promise<T> {
    const byId = await this.collection.findOne({ _id: key });
    if (byId !== null) return byId as unknown as T;
    const byName = await this.findByName(key);
    if (byName === null) throw new AppError('TEMPLATE_NOT_FOUND', `No ${this.label} has id or name "${key}"`);
    return byName;
  }

  /** Stores an exported template; a taken name becomes `name (n)` with the next free n. */
  async import(doc: Record<string, unknown> & { name: string }, username: string): Promise<T> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const similar = await this.collection.find({ name: { $regex: `^${escapeRegex(doc.name)}( \\(\\d+\\))?$` } }, { projection: { name: 1 } });
      const name = nextFreeName(doc.name, new Set(similar.map((d) => d.name)));
      try {
        return await this.create({ ...doc, name }, username);
      } catch (err) {
        // another import took the name in between: look again
        if (!hasCode(err, 'TEMPLATE_ALREADY_EXISTS')) throw err;
      }
    }
    throw new AppError('CONFLICT', `Could not find a free name for the imported ${this.label} "${doc.name}"; try again`);
  }
}
