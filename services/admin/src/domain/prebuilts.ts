import { AppError, escapeUnprintable } from '@nap/contracts';
import type { BundleType, ErrorCode, PrebuiltComponent, PrebuiltPackage, PrebuiltRecord, PrebuiltValidation } from '@nap/contracts';
import type * as Semver from 'semver';
import type { HandlerContext } from '@nap/bus';
import { onFirstUse } from '@nap/util';
import type { PrebuiltDoc } from '../store/prebuilts';

// semver (~50 modules) loads with the first pre-built checked, not with every platform
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (onFirstUse)
const semverModule = onFirstUse(() => require('semver') as typeof Semver);

/**
 * Prebuilts: packages of workflows, transformations, templates, forms and MOP templates, installed
 * through the import of each owning service, all or nothing, and recorded with the artifacts they
 * created, so that a removal deletes exactly those and an export rebuilds the package from them.
 */

/** A typed call to another service's catalog operation, as the caller of the request (`ctx.call`). */
export type Call = HandlerContext['call'];

/** One artifact as it exists in its owning service. */
export interface Artifact {
  id: string;
  name: string;
}

/**
 * How a prebuilt reaches the service that owns one bundle type: find an artifact by name, install a
 * document through the service's own import, read it back for an export, and delete it. Every step
 * is a catalog operation over the bus, made as the caller of the request.
 */
export interface BundleKind {
  /** The service that owns the artifacts, for messages. */
  readonly service: string;
  findByName(call: Call, name: string): Promise<Artifact | undefined>;
  /** Stores the document under its own name; answers its id. Throws the service's refusal as an `AppError`. */
  install(call: Call, doc: Record<string, unknown>, member: string): Promise<string>;
  read(call: Call, artifact: Artifact): Promise<Record<string, unknown>>;
  /** Deletes the artifact; nothing when it is already gone. */
  remove(call: Call, artifact: Artifact): Promise<void>;
}

/** One bundle of a package, ready to install. */
export interface PlannedBundle {
  index: number;
  type: BundleType;
  kind: BundleKind;
  name: string;
  doc: Record<string, unknown>;
  member: string;
  /** The artifact of that name that it replaces (overwrite, or the prebuilt's own during an upgrade). */
  existing?: Artifact;
}

/** Options of an import, an upgrade or a validation. */
export interface PrebuiltOptions {
  overwrite?: boolean;
  /** Install even though `metadata.IAPDependencies` names what the platform lacks (each still listed). */
  ignoreDependencies?: boolean;
}

/** What an import would refuse (error) or lack (warning), with the code it is refused with. */
export type Problem = PrebuiltValidation['problems'][number] & { code: ErrorCode };

type At = { bundle: number; type: string; name?: string };

/** Order of installation: what workflows refer to first. */
export const INSTALL_ORDER: readonly BundleType[] = [
  'template',
  'json-forms',
  'forms',
  'mop-template',
  'mop-analytic-template',
  'transformation',
  'workflow',
  'automation',
];

function error(code: ErrorCode, member: string, message: string, at?: At): Problem {
  return { severity: 'error', code, member, message, ...(at ?? {}) };
}

/** What refuses the package as a whole: a version that is not semantic, the package installed already (`other`, unless it is the one upgraded). */
export function packageProblems(pkg: PrebuiltPackage, other: PrebuiltDoc | null, upgrading: PrebuiltDoc | undefined): Problem[] {
  const problems: Problem[] = [];
  if (semverModule().valid(pkg.metadata.version) === null)
    problems.push(
      error(
        'VALIDATION_FAILED',
        'body.prebuilt.metadata.version',
        `body.prebuilt.metadata.version "${pkg.metadata.version}" is not a semantic version (1.2.3)`,
      ),
    );
  if (other !== null && other._id !== upgrading?._id) {
    problems.push(
      error(
        'PREBUILT_ALREADY_EXISTS',
        'body.prebuilt.metadata.name',
        `${pkg.metadata.name} ${other.metadata.version} is installed (id "${other._id}"); upgrade it with PUT /prebuilts/${other._id}`,
      ),
    );
  }
  return problems;
}

/** The bundles NAP can install, each with its kind; bundles of unknown types, without names or named twice are problems. */
export function planBundles(
  pkg: PrebuiltPackage,
  kinds: Partial<Record<BundleType, BundleKind>>,
  isBundleType: (type: string) => type is BundleType,
): { planned: PlannedBundle[]; problems: Problem[] } {
  const planned: PlannedBundle[] = [];
  const problems: Problem[] = [];
  const seen = new Map<string, number>();
  pkg.bundles.forEach((bundle, index) => {
    const member = `body.prebuilt.bundles[${index}]`;
    const name = typeof bundle.data.name === 'string' ? bundle.data.name : '';
    const at = { bundle: index, type: bundle.type, ...(name ? { name } : {}) };
    const kind = isBundleType(bundle.type) ? kinds[bundle.type] : undefined;
    if (!isBundleType(bundle.type) || kind === undefined) {
      const why = isBundleType(bundle.type) ? 'which NAP cannot install yet' : 'which NAP does not have';
      problems.push(
        error(
          'PREBUILT_BUNDLE_UNSUPPORTED',
          `${member}.type`,
          `bundle ${index} is of type ${bundle.type}${name ? ` ("${name}")` : ''}, ${why}`,
          at,
        ),
      );
      return;
    }
    if (name === '') {
      problems.push(
        error('VALIDATION_FAILED', `${member}.data.name`, `${member}.data.name is required: artifacts are installed under their names`, at),
      );
      return;
    }
    const key = `${kind.service}\u0000${name}`;
    const twin = seen.get(key);
    if (twin !== undefined) {
      problems.push(
        error('VALIDATION_FAILED', `${member}.data.name`, `bundles ${twin} and ${index} are both ${bundle.type} "${name}"`, at),
      );
      return;
    }
    seen.set(key, index);
    planned.push({ index, type: bundle.type, kind, name, doc: bundle.data, member: `${member}.data` });
  });
  return { planned, problems };
}

/**
 * What an artifact of the bundle's name that exists already means: it is replaced (the upgraded
 * prebuilt's own, or with `overwrite`), or it refuses the package (another prebuilt's, or no overwrite).
 */
export function existingArtifact(
  p: PlannedBundle,
  existing: Artifact,
  owner: PrebuiltDoc | null,
  upgrading: PrebuiltDoc | undefined,
  options: PrebuiltOptions,
): { replace: Artifact } | { problem: Problem } {
  const at = { bundle: p.index, type: p.type, name: p.name };
  if (owner !== null && owner._id === upgrading?._id) return { replace: existing };
  if (owner !== null)
    return {
      problem: error(
        'PREBUILT_ARTIFACT_EXISTS',
        `${p.member}.name`,
        `${p.type} "${p.name}" exists and belongs to prebuilt ${owner.metadata.name} (id "${owner._id}")`,
        at,
      ),
    };
  if (options.overwrite === true) return { replace: existing };
  return {
    problem: error(
      'PREBUILT_ARTIFACT_EXISTS',
      `${p.member}.name`,
      `${p.type} "${p.name}" exists in ${p.kind.service}; import with options.overwrite to replace it`,
      at,
    ),
  };
}

/** A dependency of the package's workflows that the package does not bring: a child-job workflow (by name) or a JST transformation (by `tr_id`). */
export interface Dependency {
  p: PlannedBundle;
  kind: 'workflow' | 'transformation';
  ref: string;
}

/** What the package's workflows need and the package does not bring, each once (the first workflow naming it). */
export function dependenciesOutside(planned: readonly PlannedBundle[]): Dependency[] {
  const workflows = planned.filter((p) => p.type === 'workflow');
  const names = new Set(workflows.map((p) => p.name));
  const transformationIds = new Set(
    planned.filter((p) => p.type === 'transformation').flatMap((p) => (typeof p.doc._id === 'string' ? [p.doc._id] : [])),
  );
  const wanted = new Map<string, Dependency>();
  for (const p of workflows) {
    for (const ref of referencesOf(p.doc)) {
      const inPackage = ref.kind === 'workflow' ? names.has(ref.ref) : transformationIds.has(ref.ref);
      const key = `${ref.kind}\u0000${ref.ref}`;
      if (!inPackage && !wanted.has(key)) wanted.set(key, { p, ...ref });
    }
  }
  return [...wanted.values()];
}

/** The warning for a dependency that neither the package nor the platform has. */
export function missingDependency({ p, kind, ref }: Dependency): Problem {
  const what = kind === 'workflow' ? `runs workflow "${ref}" as a child job` : `runs JST transformation "${ref}" (tr_id)`;
  return {
    severity: 'warning',
    code: kind === 'workflow' ? 'WORKFLOW_NOT_FOUND' : 'TRANSFORMATION_NOT_FOUND',
    member: `${p.member}.tasks`,
    bundle: p.index,
    type: p.type,
    name: p.name,
    message: `workflow "${p.name}" ${what}, which is neither in the package nor on the platform`,
  };
}

/** What the platform has that a package's `metadata.IAPDependencies` may name, each with its version where it has one. */
export interface PlatformInventory {
  /** The applications, by name (WorkFlowEngine, JsonForms, …), all at the platform's release. */
  applications: readonly string[];
  applicationVersion: string;
  /** The live adapters: name, model (the package they stand for: @itentialopensource/adapter-servicenow) and `data.version` where their document has one. */
  adapters: readonly { name: string; model?: string; version?: string }[];
  /** The installed prebuilts by package name, with their versions. */
  prebuilts: ReadonlyMap<string, string>;
}

/** One entry of `metadata.IAPDependencies` the platform does not satisfy: what, the range it asks for, and why. */
export interface UnmetDependency {
  name: string;
  /** The version range the package asks for; empty for any. */
  range: string;
  kind: 'application' | 'adapter' | 'prebuilt';
  /** What was found, when something of that name is there in a version outside the range. */
  found?: string;
  message: string;
}

/** `@itential/app-workflow_engine` → `workflowengine`, as `WorkFlowEngine` compares. */
function comparable(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** The version `range` asks for, or undefined for any (empty, `*`, `latest`, `x`). */
function rangeOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const range = value.trim();
  return range === '' || range === '*' || range === 'x' || range === 'latest' ? undefined : range;
}

/**
 * What of the package's `metadata.IAPDependencies` (package name → version range, as the original
 * platform's prebuilts list the applications and adapters they need) this platform lacks:
 * `@itential/app-<name>` is an application (`app-workflow_engine` is WorkFlowEngine), a name with
 * `adapter-` an adapter (matched by its model), anything else an installed prebuilt. A range
 * given is checked with semver against the version found; an adapter whose document holds no
 * version cannot be shown to satisfy one, and is named too.
 */
export function unmetDependencies(metadata: PrebuiltPackage['metadata'], inventory: PlatformInventory): UnmetDependency[] {
  const declared = (metadata as Record<string, unknown>).IAPDependencies;
  if (typeof declared !== 'object' || declared === null || Array.isArray(declared)) return [];
  const unmet: UnmetDependency[] = [];
  for (const [name, value] of Object.entries(declared)) {
    const range = rangeOf(value);
    const wanted = range === undefined ? name : `${name} ${range}`;
    const outside = (kind: UnmetDependency['kind'], what: string, found: string | undefined): void => {
      if (range === undefined) return;
      if (found === undefined) {
        unmet.push({ name, range, kind, message: `${wanted}: ${what} has no version to check against ${range}` });
        return;
      }
      const semver = semverModule();
      if (semver.validRange(range) === null) {
        unmet.push({ name, range, kind, found, message: `${wanted}: "${range}" is not a version range semver reads` });
        return;
      }
      if (!semver.satisfies(semver.coerce(found) ?? found, range, { includePrerelease: true }))
        unmet.push({ name, range, kind, found, message: `${wanted}: ${what} is version ${found}, which does not satisfy ${range}` });
    };
    const app = /^(?:@itential\/)?app-(.+)$/.exec(name)?.[1];
    if (app !== undefined) {
      const application = inventory.applications.find((a) => comparable(a) === comparable(app));
      if (application === undefined)
        unmet.push({ name, range: range ?? '', kind: 'application', message: `${wanted}: the platform has no application ${app}` });
      else outside('application', `application ${application}`, inventory.applicationVersion);
      continue;
    }
    if (/(^|\/)adapter-/.test(name)) {
      const adapter = inventory.adapters.find((a) => a.model !== undefined && a.model.toLowerCase() === name.toLowerCase());
      if (adapter === undefined)
        unmet.push({
          name,
          range: range ?? '',
          kind: 'adapter',
          message: `${wanted}: the platform has no adapter of model ${name} (POST /adapters with that model)`,
        });
      else outside('adapter', `adapter "${adapter.name}"`, adapter.version);
      continue;
    }
    const installed = inventory.prebuilts.get(name);
    if (installed === undefined)
      unmet.push({ name, range: range ?? '', kind: 'prebuilt', message: `${wanted}: the platform has no prebuilt ${name} installed` });
    else outside('prebuilt', `prebuilt ${name}`, installed);
  }
  return unmet;
}

/** The problems of unmet dependencies: errors that refuse the import (409), or warnings with `options.ignoreDependencies`. */
export function dependencyProblems(unmet: readonly UnmetDependency[], options: PrebuiltOptions): Problem[] {
  return unmet.map((d) => ({
    severity: options.ignoreDependencies === true ? 'warning' : 'error',
    code: 'PREBUILT_DEPENDENCY_MISSING',
    member: `body.prebuilt.metadata.IAPDependencies["${d.name}"]`,
    message: d.message,
  }));
}

/** The planned bundles in the order they are installed: what workflows refer to first, then as the package lists them. */
export function inInstallOrder(planned: PlannedBundle[]): PlannedBundle[] {
  return planned.sort((a, b) => INSTALL_ORDER.indexOf(a.type) - INSTALL_ORDER.indexOf(b.type) || a.index - b.index);
}

/** `PUT /prebuilts/import/validation`: what an import would refuse (errors) and what it would lack (warnings). */
export function validationOf(problems: Problem[]): PrebuiltValidation {
  const errors = problems.filter((p) => p.severity === 'error');
  return {
    valid: errors.length === 0,
    errors: errors.map((p) => p.message),
    warnings: problems.filter((p) => p.severity === 'warning').map((p) => p.message),
    problems: problems.map(({ code: _code, ...p }) => p),
  };
}

/** Throws what an import must refuse: every unsupported bundle type at once (422), else the first error. */
export function refuse(problems: Problem[]): void {
  const errors = problems.filter((p) => p.severity === 'error');
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
  if (first !== undefined && first.code === 'PREBUILT_DEPENDENCY_MISSING') {
    const missing = errors.filter((e) => e.code === 'PREBUILT_DEPENDENCY_MISSING');
    throw new AppError(
      'PREBUILT_DEPENDENCY_MISSING',
      `The package needs what this platform lacks: ${missing.map((p) => p.message).join('; ')}. Nothing was installed; ` +
        'install them, or import with options.ignoreDependencies to install it anyway',
      { details: missing.map((p) => ({ member: p.member, message: p.message })) },
    );
  }
  if (first !== undefined)
    throw new AppError(first.code, `${first.message}. Nothing was installed.`, {
      details: errors.filter((e) => e.code === first.code).map((p) => ({ member: p.member, message: p.message })),
    });
}

/** Refuses an upgrade by another package than the one installed. */
export function checkSamePackage(id: string, current: PrebuiltDoc, pkg: PrebuiltPackage): void {
  if (pkg.metadata.name !== current.metadata.name) {
    throw new AppError(
      'PREBUILT_VERSION_NOT_NEWER',
      `Prebuilt "${id}" is ${current.metadata.name}; body.prebuilt.metadata.name "${escapeUnprintable(pkg.metadata.name)}" is another package (import it instead)`,
      {
        details: [{ member: 'body.prebuilt.metadata.name', message: `must be ${current.metadata.name}` }],
      },
    );
  }
}

/** Refuses an upgrade to a version that is not newer than the installed one. */
export function checkNewer(current: PrebuiltDoc, pkg: PrebuiltPackage): void {
  const semver = semverModule();
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
}

/** The journal of a new installation (no components yet, `installing` since `startedAt`, epoch ms). */
export function newPrebuiltRecord(pkg: PrebuiltPackage, by: string, at: string, startedAt: number): PrebuiltDoc {
  return {
    _id: '',
    metadata: pkg.metadata,
    manifest: pkg.manifest ?? {},
    readme: pkg.readme ?? '',
    components: [],
    installed: at,
    installedBy: by,
    lastUpdated: at,
    lastUpdatedBy: by,
    installing: { startedAt },
  };
}

/** The record of an upgraded prebuilt: the new package's metadata with the artifacts it now holds. */
export function upgradedRecord(
  current: PrebuiltDoc,
  pkg: PrebuiltPackage,
  components: PrebuiltComponent[],
  by: string,
  at: string,
): PrebuiltDoc {
  return {
    ...current,
    metadata: pkg.metadata,
    manifest: pkg.manifest ?? {},
    readme: pkg.readme ?? '',
    components,
    lastUpdated: at,
    lastUpdatedBy: by,
  };
}

/** The package rebuilt from the prebuilt's artifacts as they are now (`bundles` in the order of its components). */
export function exportedPackage(record: PrebuiltDoc, bundles: PrebuiltPackage['bundles']): PrebuiltPackage {
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

/** Members of a prebuilt's metadata the platform also answers at the top level of its record (ipctl finds a prebuilt by `name`). */
const TOP_LEVEL_METADATA = ['description', 'author', 'license', 'keywords'] as const;

/** A prebuilt as answered: without the journal of its installation, its name, version, description, author, license and keywords also at the top level. */
export function prebuiltView(doc: PrebuiltDoc): PrebuiltRecord & { name: string; version: string } {
  const { installing: _i, ...record } = doc;
  const flat: Record<string, unknown> = { name: record.metadata.name, version: record.metadata.version };
  for (const key of TOP_LEVEL_METADATA) if (record.metadata[key] !== undefined) flat[key] = record.metadata[key];
  return { ...record, ...flat } as PrebuiltRecord & { name: string; version: string };
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
