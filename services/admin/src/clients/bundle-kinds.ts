import {
  AppError,
  BUNDLE_TYPES,
  analyticTemplateSchema,
  commandTemplateSchema,
  isAppError,
  parseAs,
  withMembersMoved,
} from '@nap/contracts';
import type { BundleType, PrebuiltComponent } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import { isRecord } from '@nap/util';
import type { Artifact, BundleKind, Call, PlannedBundle } from '../domain/prebuilts';

/**
 * The services that own each bundle type of a prebuilt (studio, mop, workflow), reached through
 * catalog operations as the caller of the request, and the installation across them that leaves
 * the package whole or not at all.
 */

/** The per-item answer of the studio import routes. */
type ImportAnswer = { imported: { success: boolean; message: string; created: { _id?: unknown } | null; problems?: unknown[] }[] };

/** The one item of a studio import: its id, or the service's refusal with its problems. */
function importedId(answer: ImportAnswer, member: string, service: string): string {
  const [item] = answer.imported;
  if (item === undefined) throw new AppError('INTERNAL', `${service} answered an import of one item with none`);
  if (!item.success || item.created === null) {
    throw new AppError('PREBUILT_ARTIFACT_REFUSED', `${member} was refused by ${service}: ${item.message}`, {
      details: item.problems?.map((p) => inBundle(p, member)) ?? [{ member, message: item.message }],
    });
  }
  if (typeof item.created._id !== 'string') throw new AppError('INTERNAL', `${service} stored ${member} without an id`);
  return item.created._id;
}

/**
 * A problem of the one-item import as the package's member: `body.automations[0].tasks.x.name`
 * (the import's body) is `body.prebuilt.bundles[4].data.tasks.x.name` (the caller's).
 */
function inBundle(problem: unknown, member: string): unknown {
  if (!isRecord(problem) || typeof problem.member !== 'string') return problem;
  const item = /^body\.[A-Za-z]+\[0\]/.exec(problem.member);
  return item === null ? problem : { ...problem, member: `${member}${problem.member.slice(item[0].length)}` };
}

async function ignoreMissing(remove: () => Promise<unknown>): Promise<void> {
  try {
    await remove();
  } catch (err) {
    if (!isAppError(err) || err.status !== 404) throw err;
  }
}

/** A list query finding one document by its exact name. */
function byName(name: string) {
  return { query: { equals: name, equalsField: 'name', limit: 2 } };
}

function found(items: readonly { _id?: unknown; name?: unknown }[], name: string): Artifact | undefined {
  const item = items.find((i) => i.name === name);
  return item !== undefined && typeof item._id === 'string' ? { id: item._id, name } : undefined;
}

/**
 * What `send` answers; a refusal names the members of the package (`body.prebuilt.bundles[2].data.commands[0]`),
 * not those of the mop request the document went in (`body.mop.commands[0]`, under `from`).
 */
async function inPackage<T>(from: string, member: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (err) {
    throw isAppError(err) ? withMembersMoved(err, from, member) : err;
  }
}

/** The members mop sets itself (ids, epoch-ms stamps, authors): a package's are the source platform's. */
function withoutMopStamps(doc: Record<string, unknown>): Record<string, unknown> {
  const { _id: _i, created: _c, createdBy: _cb, lastUpdated: _l, lastUpdatedBy: _lb, ...rest } = doc;
  return rest;
}

const workflow: BundleKind = {
  service: 'studio (workflows)',
  findByName: async (call, name) => found((await call('studio.getAutomations', byName(name))).items, name),
  install: async (call, doc, member) =>
    importedId(await call('studio.importAutomations', { body: { automations: [doc] } }), member, 'studio'),
  read: async (call, a) => call('studio.getAutomation', { params: { id: a.id } }),
  remove: (call, a) => ignoreMissing(() => call('studio.deleteAutomation', { params: { id: a.id } })),
};

const transformation: BundleKind = {
  service: 'studio (JST transformations)',
  findByName: async (call, name) => found((await call('studio.getTransformations', byName(name))).items, name),
  install: async (call, doc, member) =>
    importedId(await call('studio.importTransformations', { body: { transformations: [doc] } }), member, 'studio'),
  read: async (call, a) => call('studio.getTransformation', { params: { id: a.id } }),
  remove: (call, a) => ignoreMissing(() => call('studio.deleteTransformation', { params: { id: a.id } })),
};

const template: BundleKind = {
  service: 'studio (templates)',
  findByName: async (call, name) => found((await call('studio.getTemplates', byName(name))).items, name),
  install: async (call, doc, member) => importedId(await call('studio.importTemplates', { body: { templates: [doc] } }), member, 'studio'),
  read: async (call, a) => call('studio.getTemplate', { params: { id: a.id } }),
  remove: (call, a) => ignoreMissing(() => call('studio.deleteTemplate', { params: { id: a.id } })),
};

/** JSON forms and form-builder forms are both studio forms. */
const form: BundleKind = {
  service: 'studio (forms)',
  findByName: async (call, name) => found((await call('studio.getForms', byName(name))).items, name),
  install: async (call, doc, member) => importedId(await call('studio.importForms', { body: { forms: [doc] } }), member, 'studio'),
  read: async (call, a) => call('studio.getForm', { params: { id: a.id } }),
  remove: (call, a) => ignoreMissing(() => call('studio.deleteForm', { params: { id: a.id } })),
};

const mopTemplate: BundleKind = {
  service: 'mop (command templates)',
  findByName: async (call, name) => found(await call('mop.listATemplate', { params: { name } }), name),
  async install(call, doc, member) {
    const mop = parseAs(commandTemplateSchema, withoutMopStamps(doc), member);
    const created = (await inPackage('body.mop', member, () => call('mop.createTemplate', { body: { mop } }))).data;
    if (typeof created._id !== 'string') throw new AppError('INTERNAL', `mop stored ${member} without an id`);
    return created._id;
  },
  async read(call, a) {
    const [doc] = await call('mop.listATemplate', { params: { name: a.name } });
    if (doc === undefined || doc._id !== a.id)
      throw new AppError('TEMPLATE_NOT_FOUND', `No command template "${a.name}" (id "${a.id}") in mop`);
    return doc;
  },
  remove: (call, a) => ignoreMissing(() => call('mop.deleteTemplate', { params: { id: a.id } })),
};

const mopAnalyticTemplate: BundleKind = {
  service: 'mop (analytic templates)',
  findByName: async (call, name) => found(await call('mop.listAnAnalyticTemplate', { params: { name } }), name),
  async install(call, doc, member) {
    const template = parseAs(analyticTemplateSchema, withoutMopStamps(doc), member);
    const created = (await inPackage('body.template', member, () => call('mop.createAnalyticTemplate', { body: { template } }))).data;
    if (typeof created._id !== 'string') throw new AppError('INTERNAL', `mop stored ${member} without an id`);
    return created._id;
  },
  async read(call, a) {
    const [doc] = await call('mop.listAnAnalyticTemplate', { params: { name: a.name } });
    if (doc === undefined || doc._id !== a.id)
      throw new AppError('TEMPLATE_NOT_FOUND', `No analytic template "${a.name}" (id "${a.id}") in mop`);
    return doc;
  },
  remove: (call, a) => ignoreMissing(() => call('mop.deleteAnalyticTemplate', { params: { id: a.id } })),
};

/**
 * Operations manager automations (the workflow service) with their triggers, as the platform
 * exports them (`triggers` inside the automation): the workflow service imports the automation and
 * its triggers together, or neither (an event trigger on an event this platform does not publish
 * comes in disabled); deleting the automation deletes its triggers.
 */
const automation: BundleKind = {
  service: 'workflow (automations)',
  findByName: async (call, name) => found((await call('workflow.getAutomations', byName(name))).data, name),
  install: async (call, doc, member) =>
    importedId(await call('workflow.importAutomations', { body: { automations: [doc], options: {} } }), member, 'workflow'),
  read: async (call, a) => (await call('workflow.exportAutomation', { params: { id: a.id } })).data,
  remove: (call, a) => ignoreMissing(() => call('workflow.deleteAutomation', { params: { id: a.id } })),
};

/** The bundle types NAP installs, each with the service that owns it. */
export const BUNDLE_KINDS: Partial<Record<BundleType, BundleKind>> = {
  workflow,
  transformation,
  template,
  'json-forms': form,
  forms: form,
  'mop-template': mopTemplate,
  'mop-analytic-template': mopAnalyticTemplate,
  automation,
};

/** The kind of a bundle type NAP installs; 422 `PREBUILT_BUNDLE_UNSUPPORTED` for any other. */
export function kindOf(type: string): BundleKind {
  const kind = isBundleType(type) ? BUNDLE_KINDS[type] : undefined;
  if (kind === undefined) throw new AppError('PREBUILT_BUNDLE_UNSUPPORTED', `Artifacts of type "${type}" cannot be handled by NAP`);
  return kind;
}

export function isBundleType(type: string): type is BundleType {
  return (BUNDLE_TYPES as readonly string[]).includes(type);
}

/** True when studio has a JST transformation of that id. */
export async function transformationExists(call: Call, id: string): Promise<boolean> {
  try {
    await call('studio.getTransformation', { params: { id } });
    return true;
  } catch (err) {
    if (isAppError(err) && err.status === 404) return false;
    throw err;
  }
}

/** What an installation does besides installing: where it records its progress, and how it is undone. */
export interface InstallSteps {
  /** Sees the components created so far, after each bundle. */
  journal: (components: PrebuiltComponent[]) => Promise<void>;
  /** After a failure, sees `before` with the ids of what was put back (the owning service may give new ones). */
  restoredTo?: (components: PrebuiltComponent[]) => Promise<void>;
  before?: readonly PrebuiltComponent[];
  log: Logger;
}

/**
 * Installs the planned bundles after removing `leaving` (an upgrade's old artifacts), keeping a copy
 * of every artifact removed or replaced. On a failure the new artifacts are deleted, the copies put
 * back, and the error names the bundle: the package is installed whole or not at all.
 */
export async function installBundles(
  call: Call,
  planned: readonly PlannedBundle[],
  leaving: readonly PrebuiltComponent[],
  steps: InstallSteps,
): Promise<PrebuiltComponent[]> {
  const { log } = steps;
  const backups: { kind: BundleKind; component: PrebuiltComponent; doc: Record<string, unknown> }[] = [];
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
      await steps.journal(created.map((c) => c.component));
    }
  } catch (err) {
    for (const c of created.reverse()) {
      await c.kind
        .remove(call, c.component)
        .catch((e: unknown) =>
          log.error({ err: e, artifact: c.component }, 'An artifact of a failed prebuilt installation could not be deleted'),
        );
    }
    const restored = new Map<string, string>();
    for (const b of backups.reverse()) {
      try {
        restored.set(b.component.id, await b.kind.install(call, b.doc, `the replaced ${b.component.type} "${b.component.name}"`));
      } catch (e) {
        log.error({ err: e, artifact: b.component }, 'An artifact replaced by a failed prebuilt installation could not be put back');
      }
    }
    if (steps.restoredTo && steps.before) await steps.restoredTo(steps.before.map((c) => ({ ...c, id: restored.get(c.id) ?? c.id })));
    throw err;
  }
  return created.map((c) => c.component);
}

/** Runs one bundle's step; an error is thrown again naming the bundle, with its code, status and details. */
async function named<T>(p: PlannedBundle, fn: () => Promise<T>): Promise<T> {
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
