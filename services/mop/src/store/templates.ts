import { AppError, auditChanges, hasCode } from '@nap/contracts';
import type { AuditSink } from '@nap/bus';
import type { Collection, Doc, Store } from '@nap/store';
import { escapeRegex, nextFreeName } from '../domain/names';
import { COLLECTIONS } from './collections';
import { setOwn } from '@nap/util';

/** Names an import tries before it gives up (409): as many imports of one name may land at once. */
const IMPORT_ATTEMPTS = 64;

/** Which kind of template a repository holds. */
export type TemplateKind = 'template' | 'analytic';

/**
 * A template as stored: a document with a name and the authorship the service sets. Everything else
 * is stored as given (an import of an earlier release took any document with a name), so it is typed
 * only by its name.
 */
export type StoredTemplate = Doc & { name: string };

/** Members the service owns; the rest of a template is stored as given. */
const OWNED = ['_id', 'created', 'createdBy', 'lastUpdated', 'lastUpdatedBy'] as const;

function content(doc: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) if (!(OWNED as readonly string[]).includes(key)) setOwn(out, key, value);
  return out;
}

/**
 * Members of the spec's mopTemplateDoc / mopAnalyticTemplateDoc a template is stored with when it is
 * given without them, as the original platform stores a new template: no operating system kind (its
 * exports carry `os: ""`), every command (pair) must pass, none yet. Reads answer them too for a
 * template stored before they were set.
 */
const DEFAULTS: Record<TemplateKind, Readonly<Record<string, unknown>>> = {
  template: { os: '', passRule: true, commands: [] },
  analytic: { os: '', passRule: true, prepostCommands: [] },
};

/** Types a stored template by its schema (`parseAs`), naming it by `label` in the problems; throws when it does not match. */
export type TemplateCheck<T> = (doc: StoredTemplate, label: string) => T;

/**
 * Command or analytic templates: unique names, authorship set by the service, the members of
 * {@link DEFAULTS} set when absent. Reads answer the documents as stored (with those members);
 * {@link TemplateRepository.checked} types one as `T` before the service runs it.
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

  /** The members of {@link DEFAULTS} `doc` lacks (fresh arrays, never shared). */
  private missing(doc: Readonly<Record<string, unknown>>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(DEFAULTS[this.kind]))
      if (doc[key] === undefined) out[key] = Array.isArray(value) ? [] : value;
    return out;
  }

  /** A stored template as answered: with the members it is never without. */
  private shaped(doc: StoredTemplate): StoredTemplate;
  private shaped(doc: StoredTemplate | null): StoredTemplate | null;
  private shaped(doc: StoredTemplate | null): StoredTemplate | null {
    return doc === null ? null : { ...doc, ...this.missing(doc) };
  }

  /** The kind of target the audit trail names a template of this repository. */
  get auditKind(): 'command-template' | 'analytic-template' {
    return this.kind === 'template' ? 'command-template' : 'analytic-template';
  }

  private duplicate(name: string, err: unknown): AppError {
    // "An analytic template", "A command template"
    const article = /^[aeiou]/i.test(this.label) ? 'An' : 'A';
    return new AppError('TEMPLATE_ALREADY_EXISTS', `${article} ${this.label} named "${name}" exists; choose another name`, { cause: err });
  }

  async create(doc: Readonly<Record<string, unknown>> & { name: string }, username: string): Promise<StoredTemplate> {
    const now = Date.now();
    try {
      return await this.collection.insertOne({
        ...content(doc),
        ...this.missing(doc),
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
      ...this.missing(doc),
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
    return (await this.collection.find({}, { sort: { name: 1 } })).map((doc) => this.shaped(doc));
  }

  async findByName(name: string): Promise<StoredTemplate | null> {
    return this.shaped(await this.collection.findOne({ name }));
  }

  async getByName(name: string): Promise<StoredTemplate> {
    const found = await this.findByName(name);
    if (found === null) throw new AppError('TEMPLATE_NOT_FOUND', `No ${this.label} is named "${name}"`);
    return found;
  }

  /** By id, or by name when no id matches. */
  async getByIdOrName(key: string): Promise<StoredTemplate> {
    const byId = await this.collection.findOne({ _id: key });
    if (byId !== null) return this.shaped(byId);
    const byName = await this.findByName(key);
    if (byName === null) throw new AppError('TEMPLATE_NOT_FOUND', `No ${this.label} has id or name "${key}"`);
    return byName;
  }

  /**
   * A stored template typed by its schema, to run it. One that does not match (an import of an earlier
   * release stored any document with a name) answers 400 `VALIDATION_FAILED` naming the members at fault.
   */
  checked(doc: StoredTemplate): T {
    return this.check(doc, `${this.label} "${doc.name}"`);
  }

  /**
   * {@link TemplateRepository.checked}, and refused with 400 `VALIDATION_FAILED` naming its
   * `commands` (`prepostCommands`) when it has none: a run of nothing would pass every device
   * without asking it anything.
   */
  runnable(doc: StoredTemplate): T {
    const template = this.checked(doc);
    const member = this.kind === 'template' ? 'commands' : 'prepostCommands';
    const list = doc[member];
    if (Array.isArray(list) && list.length > 0) return template;
    const label = `${this.label} "${doc.name}"`;
    const what = this.kind === 'template' ? 'commands' : 'pre/post command pairs (prepostCommands)';
    throw new AppError('VALIDATION_FAILED', `The ${label} has no ${what}: add one before running it`, {
      details: [{ member: `${label}.${member}`, message: 'must have at least 1 item to run', keyword: 'minItems' }],
    });
  }

  /**
   * Stores an exported template; a taken name becomes `name (n)` with the next free n. An attempt
   * fails only when another import took that name in between, so that many imports of one name at
   * once each land within {@link IMPORT_ATTEMPTS}.
   */
  async import(doc: Readonly<Record<string, unknown>> & { name: string }, username: string): Promise<StoredTemplate> {
    for (let attempt = 0; attempt < IMPORT_ATTEMPTS; attempt++) {
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
