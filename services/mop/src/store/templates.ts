import { AppError, auditChanges, hasCode } from '@nap/contracts';
import type { AuditSink } from '@nap/bus';
import type { Collection, Doc, Store } from '@nap/store';
import { escapeRegex, nextFreeName } from '../domain/names';
import { COLLECTIONS } from './collections';

/** Which kind of template a repository holds. */
export type TemplateKind = 'template' | 'analytic';

/**
 * A template as stored: a document with a name and the authorship the service sets. Everything else
 * is stored as given (an import takes any document with a name), so it is typed only by its name.
 */
export type StoredTemplate = Doc & { name: string };

/** Members the service owns; the rest of a template is stored as given. */
const OWNED = ['_id', 'created', 'createdBy', 'lastUpdated', 'lastUpdatedBy'] as const;

function content(doc: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) if (!(OWNED as readonly string[]).includes(key)) out[key] = value;
  return out;
}

/** Types a stored template by its schema (`parseAs`), naming it by `label` in the problems; throws when it does not match. */
export type TemplateCheck<T> = (doc: StoredTemplate, label: string) => T;

/**
 * Command or analytic templates: unique names, authorship set by the service. Reads answer the
 * documents as stored; {@link TemplateRepository.checked} types one as `T` before the service runs it.
 */
export class TemplateRepository<T extends { name: string }> {
  private readonly collection: Collection<StoredTemplate>;

  constructor(
    store: Store,
    readonly kind: TemplateKind,
    private readonly check: TemplateCheck<T>,
  ) {
    this.collection = store.collection<StoredTemplate>(kind === 'template' ? COLLECTIONS.templates : COLLECTIONS.analyticTemplates);
  }

  private get label(): string {
    return this.kind === 'template' ? 'command template' : 'analytic template';
  }

  /** The kind of target the audit trail names a template of this repository. */
  get auditKind(): 'command-template' | 'analytic-template' {
    return this.kind === 'template' ? 'command-template' : 'analytic-template';
  }

  private duplicate(name: string, err: unknown): AppError {
    return new AppError('TEMPLATE_ALREADY_EXISTS', `A ${this.label} named "${name}" exists; choose another name`, { cause: err });
  }

  async create(doc: Readonly<Record<string, unknown>> & { name: string }, username: string): Promise<StoredTemplate> {
    const now = Date.now();
    try {
      return await this.collection.insertOne({
        ...content(doc),
        name: doc.name,
        created: now,
        createdBy: username,
        lastUpdated: now,
        lastUpdatedBy: username,
      });
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY')) throw this.duplicate(doc.name, err);
      throw err;
    }
  }

  /** Replaces the template with id `id`; created and createdBy are kept. */
  async update(
    id: string,
    doc: Readonly<Record<string, unknown>> & { name: string },
    username: string,
    audit?: AuditSink,
  ): Promise<StoredTemplate> {
    const existing = await this.collection.findOne({ _id: id });
    if (existing === null) throw new AppError('TEMPLATE_NOT_FOUND', `No ${this.label} has id "${id}"`);
    return this.replace(existing, doc, username, audit);
  }

  /** Replaces the template named `name` (the route Itential's MCP server calls); created and createdBy are kept. */
  async updateByName(
    name: string,
    doc: Readonly<Record<string, unknown>> & { name: string },
    username: string,
    audit?: AuditSink,
  ): Promise<StoredTemplate> {
    const existing = await this.collection.findOne({ name });
    if (existing === null) throw new AppError('TEMPLATE_NOT_FOUND', `No ${this.label} is named "${name}"`);
    return this.replace(existing, doc, username, audit);
  }

  private async replace(
    existing: StoredTemplate,
    doc: Readonly<Record<string, unknown>> & { name: string },
    username: string,
    audit: AuditSink | undefined,
  ): Promise<StoredTemplate> {
    const id = existing._id;
    const next = {
      ...content(doc),
      name: doc.name,
      created: existing.created,
      createdBy: existing.createdBy,
      lastUpdated: Date.now(),
      lastUpdatedBy: username,
    };
    try {
      await this.collection.replaceOne({ _id: id }, next);
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY')) throw this.duplicate(doc.name, err);
      throw err;
    }
    const stored = { _id: id, ...next };
    audit?.audit({ target: { kind: this.auditKind, id, name: doc.name }, changes: auditChanges(existing, stored) });
    return stored;
  }

  async delete(id: string): Promise<StoredTemplate> {
    const gone = await this.collection.findOneAndDelete({ _id: id });
    if (gone === null) throw new AppError('TEMPLATE_NOT_FOUND', `No ${this.label} has id "${id}"`);
    return gone;
  }

  async list(): Promise<StoredTemplate[]> {
    return this.collection.find({}, { sort: { name: 1 } });
  }

  async findByName(name: string): Promise<StoredTemplate | null> {
    return this.collection.findOne({ name });
  }

  async getByName(name: string): Promise<StoredTemplate> {
    const found = await this.findByName(name);
    if (found === null) throw new AppError('TEMPLATE_NOT_FOUND', `No ${this.label} is named "${name}"`);
    return found;
  }

  /** By id, or by name when no id matches. */
  async getByIdOrName(key: string): Promise<StoredTemplate> {
    const byId = await this.collection.findOne({ _id: key });
    if (byId !== null) return byId;
    const byName = await this.findByName(key);
    if (byName === null) throw new AppError('TEMPLATE_NOT_FOUND', `No ${this.label} has id or name "${key}"`);
    return byName;
  }

  /**
   * A stored template typed by its schema, to run it. One that does not match (an import stores any
   * document with a name) answers 400 `VALIDATION_FAILED` naming the members at fault.
   */
  checked(doc: StoredTemplate): T {
    return this.check(doc, `${this.label} "${doc.name}"`);
  }

  /** Stores an exported template; a taken name becomes `name (n)` with the next free n. */
  async import(doc: Readonly<Record<string, unknown>> & { name: string }, username: string): Promise<StoredTemplate> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const similar = await this.collection.find(
        { name: { $regex: `^${escapeRegex(doc.name)}( \\(\\d+\\))?$` } },
        { projection: { name: 1 } },
      );
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
