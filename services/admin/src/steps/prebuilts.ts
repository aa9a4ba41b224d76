// Prebuilts: analysis of a package against the platform.
import { APPLICATION_NAMES, RELEASE } from '@nap/contracts';
import type { PrebuiltPackage } from '@nap/contracts';
import { BUNDLE_KINDS, isBundleType, transformationExists } from '../clients/bundle-kinds';
import type { AdminContext } from '../context';
import {
  dependenciesOutside,
  dependencyProblems,
  existingArtifact,
  inInstallOrder,
  missingDependency,
  packageProblems,
  planBundles,
  unmetDependencies,
} from '../domain/prebuilts';
import type { Call, PlannedBundle, PlatformInventory, PrebuiltOptions, Problem, UnmetDependency } from '../domain/prebuilts';
import type { PrebuiltDoc } from '../store/prebuilts';

/**
 * Every check of an import, writing nothing: the version, the package installed already, the
 * bundle types and names, clashes with artifacts that exist (`upgrading`: the prebuilt an upgrade
 * replaces, whose own artifacts give way), and the dependencies of its workflows. The bundles
 * come back in the order they are installed.
 */
export async function analysePrebuilt(
  svc: AdminContext,
  call: Call,
  pkg: PrebuiltPackage,
  options: PrebuiltOptions,
  upgrading?: PrebuiltDoc,
): Promise<{ problems: Problem[]; planned: PlannedBundle[]; unmet: UnmetDependency[] }> {
  const problems = packageProblems(pkg, await svc.prebuilts.findByName(pkg.metadata.name), upgrading);
  const unmet = unmetDependencies(pkg.metadata, await platformInventory(svc));
  problems.push(...dependencyProblems(unmet, options));
  const plan = planBundles(pkg, BUNDLE_KINDS, isBundleType);
  problems.push(...plan.problems);
  for (const p of plan.planned) {
    const existing = await p.kind.findByName(call, p.name);
    if (existing === undefined) continue;
    const outcome = existingArtifact(p, existing, await svc.prebuilts.ownerOf(existing.id), upgrading, options);
    if ('replace' in outcome) p.existing = outcome.replace;
    else problems.push(outcome.problem);
  }
  for (const dependency of dependenciesOutside(plan.planned)) {
    const found =
      dependency.kind === 'workflow'
        ? (await BUNDLE_KINDS.workflow?.findByName(call, dependency.ref)) !== undefined
        : await transformationExists(call, dependency.ref);
    if (!found) problems.push(missingDependency(dependency));
  }
  return { problems, planned: inInstallOrder(plan.planned), unmet };
}

/** The applications, adapters and prebuilts a package's IAPDependencies are checked against. */
async function platformInventory(svc: AdminContext): Promise<PlatformInventory> {
  const adapters = (await svc.adapters.live()).map((doc) => ({
    name: doc.name,
    ...(typeof doc.data.model === 'string' ? { model: doc.data.model } : {}),
    ...(typeof doc.data.version === 'string' ? { version: doc.data.version } : {}),
  }));
  return { applications: APPLICATION_NAMES, applicationVersion: RELEASE, adapters, prebuilts: await svc.prebuilts.installedVersions() };
}
