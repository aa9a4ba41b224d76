import { AppError, BUNDLE_TYPES, TIMEOUTS_MS, hasCode, isAppError } from '@nap/contracts';
import type {
  BundleType,
  ErrorCode,
  ListQueryOptions,
  PrebuiltComponent,
  PrebuiltPackage,
  PrebuiltRecord,
  PrebuiltValidation,
} from '@nap/contracts';
import { toListQuery } from '@nap/store';
import type { Collection, Store } from '@nap/store';
import type { Logger } from '@nap/telemetry';
import semver from 'semver';
import { BUNDLE_KINDS, INSTALL_ORDER } from './bundle-kinds';
import type { Artifact, BundleKind, Call } from './bundle-kinds';

/** The collection of installed prebuilts (its unique `metadata.name` index is declared in `store/collections.ts`). */
export const PREBUILTS_COLLECTION = 'prebuilts';

/** An installed prebuilt as stored; while an installation runs, `installing` is set and the record is its journal. */
export type PrebuiltDoc = PrebuiltRecord & { _id: string; installing?: { startedAt: number } };

/** Options of an import, an upgrade or a validation. */
export interface PrebuiltOptions {
  overwrite?: boolean;
}

type Problem = PrebuiltValidation['problems'][number] & { code: ErrorCode };

/** One bundle of the package, ready to install. */
interface Planned {
  index: number;
  type: BundleType;
  kind: BundleKind;
  name: string;
  doc: Record<string, unknown>;
  member: string;
  /** The artifact of that name that it replaces (overwrite, or the prebuilt's own during an upgrade). */
  existing?: Artifact;
}

/** An artifact removed while installing, kept to be put back if the installation fails. */
interface Backup {
  kind: BundleKind;
  component: PrebuiltComponent;
  doc: Record<string, unknown>;
}

function isBundleType(type: string): type is BundleType {
  return (BUNDLE_TYPES as readonly string[]).includes(type);
}

function kindOf(type: string): BundleKind {
  const kind = isBundleType(type) ? BUNDLE_KINDS[type] : undefined;
  if (kind === undefined) throw new AppError('PREBUILT_BUNDLE_UNSUPPORTED', `Artifacts of type "${type}" cannot be handled by NAP`);
  return kind;
}

/**
 * Prebuilts: packages of workflows, transformations, templates, forms and MOP templates, installed
 * through the import of each owning service, all or nothing, and recorded with the artifacts they
 * created, so that a removal deletes exactly those and an export rebuilds the package from them.
 */
export class PrebuiltDomain {
  private readonly prebuilts: Collection<PrebuiltDoc>;

  constructor(
    store: Store,
    private readonly log: Logger,
    private readonly now: () => string = () => new Date().toISOString(),
  ) {
    this.prebuilts = store.collection<PrebuiltDoc>(PREBUILTS_COLLECTION);
  }

  async list(query: ListQueryOptions): Promise<{ results: PrebuiltRecord[]; total: number }> {
    const q = toListQuery(query, {
      filter: ['metadata.name', 'metadata.version', 'metadata.description'],
      sort: ['metadata.name', 'metadata.version', 'installed'],
      defaultSort: { 'metadata.name': 1 },
    });
    const filter = { $and: [q.filter, { installing: { $exists: false } }] };
    const [docs, total] = await Promise.all([
      this.prebuilts.find(filter, { sort: q.sort, skip: q.skip, limit: q.limit }),
      this.prebuilts.countDocuments(filter),
    ]);
    return { results: docs.map(view), total };
  }

  async get(id: string): Promise<PrebuiltRecord> {
    return view(await this.installed(id));
  }

  /** The installed prebuilt of a package name, if any (what the repository listing shows next to each package). */
  async installedByName(name: string): Promise<{ id: string; version: string } | null> {
    const found = await this.prebuilts.findOne({ 'metadata.name': name, installing: { $exists: false } });
    return found === null ? null : { id: found._id, version: found.metadata.version };
  }

  /** `PUT /prebuilts/import/validation`: what an import would refuse (errors) and what it would lack (warnings), installing nothing. */
  async validate(call: Call, pkg: PrebuiltPackage, options: PrebuiltOptions): Promise<PrebuiltValidation> {
    const { problems } = await this.analyse(call, pkg, options);
    const errors = problems.filter((p) => p.severity === 'error');
    return {
      valid: errors.length === 0,
      errors: errors.map((p) => p.message),
      warnings: problems.filter((p) => p.severity === 'warning').map((p) => p.message),
      problems: problems.map(({ code: _code, ...p }) => p),
    };
  }

  /** `POST /prebuilts/import`: every bundle through its owning service; on any failure, nothing stays and nothing is recorded. */
  async import(call: Call, pkg: PrebuiltPackage, options: PrebuiltOptions, by: string): Promise<PrebuiltRecord> {
    await this.rollBackStale(call, pkg.metadata.name);
    const { planned } = this.refuse(await this.analyse(call, pkg, options));
    const at = this.now();
    const record: PrebuiltDoc = {
      _id: '',
      metadata: pkg.metadata,
      manifest: pkg.manifest ?? {},
      readme: pkg.readme ?? '',
      components: [],
      installed: at,
      installedBy: by,
      lastUpdated: at,
      lastUpdatedBy: by,
      installing: { startedAt: Date.now() },
    };
    const { _id: _none, ...fresh } = record;
    try {
      record._id = (await this.prebuilts.insertOne(fresh))._id;
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY')) throw alreadyInstalled(pkg.metadata.name, err);
      throw err;
    }
    try {
      record.components = await this.apply(call, planned, [], async (components) => {
        await this.prebuilts.updateOne({ _id: record._id }, { $set: { components } });
      });
    } catch (err) {
      await this.prebuilts
        .deleteOne({ _id: record._id })
        .catch((e: unknown) =>
          this.log.error({ err: e, prebuilt: record._id }, 'The record of a failed prebuilt installation could not be deleted'),
        );
      throw err;
    }
    await this.prebuilts.updateOne({ _id: record._id }, { $set: { components: record.components }, $unset: { installing: '' } });
    return view(record);
  }

  /** `PUT /prebuilts/:id`: the same package in a newer version; the old artifacts give way and come back if the upgrade fails. */
  async upgrade(call: Call, id: string, pkg: PrebuiltPackage, options: PrebuiltOptions, by: string): Promise<PrebuiltRecord> {
    const current = await this.installed(id);
    if (pkg.metadata.name !== current.metadata.name) {
      throw new AppError(
        'PREBUILT_VERSION_NOT_NEWER',
        `Prebuilt "${id}" is ${current.metadata.name}; body.prebuilt.metadata.name "${pkg.metadata.name}" is another package (import it instead)`,
        {
          details: [{ member: 'body.prebuilt.metadata.name', message: `must be ${current.metadata.name}` }],
        },
      );
    }
    const { planned } = this.refuse(await this.analyse(call, pkg, options, current));
    const older = semver.valid(current.metadata.version);
    if (older !== null && !semver.gt(pkg.metadata.version, older)) {
      throw new AppError(
        'PREBUILT_VERSION_NOT_NEWER',
        `${pkg.metadata.name} ${current.metadata.version} is installed; body.prebuilt.metadata.version ${pkg.metadata.version} is not newer`,
        {
          details: [{ member: 'body.prebuilt.metadata.version', message: `must be newer than ${current.metadata.version}` }],
        },
      );
    }
    // the prebuilt's own artifacts that the new version does not replace by name are removed as well
    const replaced = new Set(planned.flatMap((p) => (p.existing ? [p.existing.id] : [])));
    const leaving = current.components.filter((c) => !replaced.has(c.id));
    const components = await this.apply(
      call,
      planned,
      leaving,
      async () => undefined,
      async (restored) => {
        // what was put back after a failure may have new ids (mop gives its own): the record follows
        await this.prebuilts.updateOne({ _id: id }, { $set: { components: restored } });
      },
      current.components,
    );
    const at = this.now();
    const next: PrebuiltDoc = {
      ...current,
      metadata: pkg.metadata,
      manifest: pkg.manifest ?? {},
      readme: pkg.readme ?? '',
      components,
      lastUpdated: at,
      lastUpdatedBy: by,
    };
    await this.prebuilts.replaceOne({ _id: id }, next);
    return view(next);
  }

  /** `DELETE /prebuilts/:id`: exactly the artifacts the prebuilt created, through their services, then the record. */
  async remove(call: Call, id: string): Promise<number> {
    const record = await this.installed(id);
    const left = [...record.components];
    for (const c of [...record.components].reverse()) {
      await kindOf(c.type).remove(call, c);
      left.pop();
      await this.prebuilts.updateOne({ _id: id }, { $set: { components: left } });
    }
    await this.prebuilts.deleteOne({ _id: id });
    return record.components.length;
  }

  /** `GET /prebuilts/:id/export`: the package rebuilt from its artifacts as they are now. */
  async export(call: Call, id: string): Promise<PrebuiltPackage> {
    const record = await this.installed(id);
    const bundles: PrebuiltPackage['bundles'] = [];
    for (const c of record.components) bundles.push({ type: c.type, data: await kindOf(c.type).read(call, c) });
    const manifest = record.manifest ?? {};
    return {
      metadata: record.metadata,
      manifest: {
        ...manifest,
        bundleName: typeof manifest.bundleName === 'string' ? manifest.bundleName : record.metadata.name,
        artifacts: record.components.map((c, i) => ({ id: c.id, name: c.name, type: c.type, location: `/bundles/${i}` })),
      },
      bundles,
      readme: record.readme ?? '',
    };
  }

  /**
   * An installation that a crash interrupted leaves its record (its journal) behind: once it is older
   * than an import may run, the artifacts it lists are deleted and the record with them, so that the
   * package can be installed again. (Artifacts it had overwritten cannot be put back: their copies
   * were in the memory of the process that crashed.)
   */
  private async rollBackStale(call: Call, name: string): Promise<void> {
    const stale = await this.prebuilts.find({ 'metadata.name': name, 'installing.startedAt': { $lt: Date.now() - TIMEOUTS_MS.long } });
    for (const record of stale) {
      this.log.warn(
        { prebuilt: record._id, name, components: record.components.length },
        'Rolling back a prebuilt installation that did not finish',
      );
      for (const c of [...record.components].reverse()) {
        await kindOf(c.type)
          .remove(call, c)
          .catch((err: unknown) =>
            this.log.error({ err, artifact: c }, 'An artifact of an unfinished prebuilt installation could not be deleted'),
          );
      }
      await this.prebuilts.deleteOne({ _id: record._id });
    }
  }

  private async installed(id: string): Promise<PrebuiltDoc> {
    const found = await this.prebuilts.findOne({ _id: id, installing: { $exists: false } });
    if (found === null) throw new AppError('PREBUILT_NOT_FOUND', `No installed prebuilt with id "${id}"`);
    return found;
  }

  /**
   * Installs the planned bundles after removing `leaving` (an upgrade's old artifacts), keeping a copy
   * of every artifact removed or replaced. On a failure the new artifacts are deleted, the copies put
   * back, and the error names the bundle. `journal` sees the components created so far.
   */
  private async apply(
    call: Call,
    planned: readonly Planned[],
    leaving: readonly PrebuiltComponent[],
    journal: (components: PrebuiltComponent[]) => Promise<void>,
    restoredTo?: (components: PrebuiltComponent[]) => Promise<void>,
    before?: readonly PrebuiltComponent[],
  ): Promise<PrebuiltComponent[]> {
    const backups: Backup[] = [];
    const created: { kind: BundleKind; component: PrebuiltComponent }[] = [];
    const takeAway = async (kind: BundleKind, component: PrebuiltComponent): Promise<void> => {
      backups.push({ kind, component, doc: await kind.read(call, component) });
      await kind.remove(call, component);
    };
    try {
      for (const c of leaving) await takeAway(kindOf(c.type), c);
      for (const p of planned) {
        await named(p, async () => {
          if (p.existing) await takeAway(p.kind, { ...p.existing, type: p.type });
          const id = await p.kind.install(call, p.doc, p.member);
          created.push({ kind: p.kind, component: { id, name: p.name, type: p.type } });
        });
        await journal(created.map((c) => c.component));
      }
    } catch (err) {
      for (const c of created.reverse()) {
        await c.kind
          .remove(call, c.component)
          .catch((e: unknown) =>
            this.log.error({ err: e, artifact: c.component }, 'An artifact of a failed prebuilt installation could not be deleted'),
          );
      }
      const restored = new Map<string, string>();
      for (const b of backups.reverse()) {
        try {
          restored.set(b.component.id, await b.kind.install(call, b.doc, `the replaced ${b.component.type} "${b.component.name}"`));
        } catch (e) {
          this.log.error({ err: e, artifact: b.component }, 'An artifact replaced by a failed prebuilt installation could not be put back');
        }
      }
      if (restoredTo && before) await restoredTo(before.map((c) => ({ ...c, id: restored.get(c.id) ?? c.id })));
      throw err;
    }
    return created.map((c) => c.component);
  }

  /** Throws what an import must refuse: every unsupported bundle type at once (422), else the first error. */
  private refuse(analysis: { problems: Problem[]; planned: Planned[] }): { planned: Planned[] } {
    const errors = analysis.problems.filter((p) => p.severity === 'error');
    const unsupported = errors.filter((p) => p.code === 'PREBUILT_BUNDLE_UNSUPPORTED');
    if (unsupported.length > 0) {
      throw new AppError(
        'PREBUILT_BUNDLE_UNSUPPORTED',
        `The package has bundles NAP cannot install: ${unsupported.map((p) => p.message).join('; ')}. Nothing was installed.`,
        {
          details: unsupported.map((p) => ({ member: p.member, message: p.message })),
        },
      );
    }
    const [first] = errors;
    if (first !== undefined)
      throw new AppError(first.code, `${first.message}. Nothing was installed.`, {
        details: errors.filter((e) => e.code === first.code).map((p) => ({ member: p.member, message: p.message })),
      });
    return { planned: analysis.planned };
  }

  /** Every check of an import, writing nothing: types, names, clashes with what exists, and the dependencies of its workflows. */
  private async analyse(
    call: Call,
    pkg: PrebuiltPackage,
    options: PrebuiltOptions,
    upgrading?: PrebuiltDoc,
  ): Promise<{ problems: Problem[]; planned: Planned[] }> {
    const problems: Problem[] = [];
    const error = (code: ErrorCode, member: string, message: string, at?: { bundle: number; type: string; name?: string }): void => {
      problems.push({ severity: 'error', code, member, message, ...(at ?? {}) });
    };
    if (semver.valid(pkg.metadata.version) === null)
      error(
        'VALIDATION_FAILED',
        'body.prebuilt.metadata.version',
        `body.prebuilt.metadata.version "${pkg.metadata.version}" is not a semantic version (1.2.3)`,
      );
    const other = await this.prebuilts.findOne({ 'metadata.name': pkg.metadata.name });
    if (other !== null && other._id !== upgrading?._id) {
      error(
        'PREBUILT_ALREADY_EXISTS',
        'body.prebuilt.metadata.name',
        `${pkg.metadata.name} ${other.metadata.version} is installed (id "${other._id}"); upgrade it with PUT /prebuilts/${other._id}`,
      );
    }

    const planned: Planned[] = [];
    const seen = new Map<string, number>();
    pkg.bundles.forEach((bundle, index) => {
      const member = `body.prebuilt.bundles[${index}]`;
      const name = typeof bundle.data.name === 'string' ? bundle.data.name : '';
      const at = { bundle: index, type: bundle.type, ...(name ? { name } : {}) };
      const kind = isBundleType(bundle.type) ? BUNDLE_KINDS[bundle.type] : undefined;
      if (!isBundleType(bundle.type) || kind === undefined) {
        const why = isBundleType(bundle.type) ? 'which NAP cannot install yet' : 'which NAP does not have';
        error(
          'PREBUILT_BUNDLE_UNSUPPORTED',
          `${member}.type`,
          `bundle ${index} is of type ${bundle.type}${name ? ` ("${name}")` : ''}, ${why}`,
          at,
        );
        return;
      }
      if (name === '') {
        error('VALIDATION_FAILED', `${member}.data.name`, `${member}.data.name is required: artifacts are installed under their names`, at);
        return;
      }
      const key = `${kind.service}\u0000${name}`;
      const twin = seen.get(key);
      if (twin !== undefined) {
        error('VALIDATION_FAILED', `${member}.data.name`, `bundles ${twin} and ${index} are both ${bundle.type} "${name}"`, at);
        return;
      }
      seen.set(key, index);
      planned.push({ index, type: bundle.type, kind, name, doc: bundle.data, member: `${member}.data` });
    });

    for (const p of planned) {
      const existing = await p.kind.findByName(call, p.name);
      if (existing === undefined) continue;
      const owner = await this.prebuilts.findOne({ 'components.id': existing.id });
      const at = { bundle: p.index, type: p.type, name: p.name };
      if (owner !== null && owner._id === upgrading?._id) p.existing = existing;
      else if (owner !== null)
        error(
          'PREBUILT_ARTIFACT_EXISTS',
          `${p.member}.name`,
          `${p.type} "${p.name}" exists and belongs to prebuilt ${owner.metadata.name} (id "${owner._id}")`,
          at,
        );
      else if (options.overwrite === true) p.existing = existing;
      else
        error(
          'PREBUILT_ARTIFACT_EXISTS',
          `${p.member}.name`,
          `${p.type} "${p.name}" exists in ${p.kind.service}; import with options.overwrite to replace it`,
          at,
        );
    }

    problems.push(...(await this.missingDependencies(call, planned)));
    planned.sort((a, b) => INSTALL_ORDER.indexOf(a.type) - INSTALL_ORDER.indexOf(b.type) || a.index - b.index);
    return { problems, planned };
  }

  /**
   * Warnings for what the package's workflows need and neither the package nor the platform has:
   * child-job workflows (by name) and JST transformations (by `tr_id`).
   */
  private async missingDependencies(call: Call, planned: readonly Planned[]): Promise<Problem[]> {
    const workflows = planned.filter((p) => p.type === 'workflow');
    const names = new Set(workflows.map((p) => p.name));
    const transformationIds = new Set(
      planned.filter((p) => p.type === 'transformation').flatMap((p) => (typeof p.doc._id === 'string' ? [p.doc._id] : [])),
    );
    const wanted = new Map<string, { p: Planned; kind: 'workflow' | 'transformation'; ref: string }>();
    for (const p of workflows) {
      for (const ref of referencesOf(p.doc)) {
        const inPackage = ref.kind === 'workflow' ? names.has(ref.ref) : transformationIds.has(ref.ref);
        const key = `${ref.kind}\u0000${ref.ref}`;
        if (!inPackage && !wanted.has(key)) wanted.set(key, { p, ...ref });
      }
    }
    const out: Problem[] = [];
    for (const { p, kind, ref } of wanted.values()) {
      if (kind === 'workflow' && (await BUNDLE_KINDS.workflow?.findByName(call, ref)) !== undefined) continue;
      if (kind === 'transformation' && (await transformationExists(call, ref))) continue;
      const what = kind === 'workflow' ? `runs workflow "${ref}" as a child job` : `runs JST transformation "${ref}" (tr_id)`;
      out.push({
        severity: 'warning',
        code: kind === 'workflow' ? 'WORKFLOW_NOT_FOUND' : 'TRANSFORMATION_NOT_FOUND',
        member: `${p.member}.tasks`,
        bundle: p.index,
        type: p.type,
        name: p.name,
        message: `workflow "${p.name}" ${what}, which is neither in the package nor on the platform`,
      });
    }
    return out;
  }
}

async function transformationExists(call: Call, id: string): Promise<boolean> {
  try {
    await call('studio.getTransformation', { params: { id } });
    return true;
  } catch (err) {
    if (isAppError(err) && err.status === 404) return false;
    throw err;
  }
}

/** What a workflow document's tasks name statically: child-job workflows and JST transformations (`$var` references resolve when the job runs). */
function referencesOf(doc: Record<string, unknown>): { kind: 'workflow' | 'transformation'; ref: string }[] {
  const tasks = doc.tasks;
  if (typeof tasks !== 'object' || tasks === null) return [];
  const out: { kind: 'workflow' | 'transformation'; ref: string }[] = [];
  for (const task of Object.values(tasks)) {
    if (typeof task !== 'object' || task === null || !('name' in task) || !('variables' in task)) continue;
    const variables = task.variables;
    const incoming = typeof variables === 'object' && variables !== null && 'incoming' in variables ? variables.incoming : undefined;
    if (typeof incoming !== 'object' || incoming === null) continue;
    const ref =
      task.name === 'childJob' && 'workflow' in incoming
        ? incoming.workflow
        : task.name === 'transformation' && 'tr_id' in incoming
          ? incoming.tr_id
          : undefined;
    if (typeof ref === 'string' && ref !== '' && !ref.startsWith('$'))
      out.push({ kind: task.name === 'childJob' ? 'workflow' : 'transformation', ref });
  }
  return out;
}

/** Runs one bundle's step; an error is thrown again naming the bundle, with its code, status and details. */
async function named<T>(p: Planned, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!isAppError(err)) throw err;
    throw new AppError(
      err.code,
      `Bundle ${p.index} (${p.type} "${p.name}") was refused by ${p.kind.service}: ${err.message}. Nothing was installed.`,
      {
        status: err.status,
        cause: err,
        ...(err.details !== undefined ? { details: err.details } : {}),
      },
    );
  }
}

function alreadyInstalled(name: string, cause: unknown): AppError {
  return new AppError('PREBUILT_ALREADY_EXISTS', `A prebuilt named ${name} is installed; upgrade it with PUT /prebuilts/:id`, { cause });
}

function view(doc: PrebuiltDoc): PrebuiltRecord {
  const { installing: _i, ...record } = doc;
  return record;
}
