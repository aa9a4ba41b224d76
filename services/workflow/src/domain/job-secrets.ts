import { EVERY, SECRET_WALK_DEPTH, findDeclaredSecrets, findSecrets, maskDeclaredSecrets, secretMask } from '@nap/contracts';
import type { SecretMask } from '@nap/contracts';
import type { Projection } from '@nap/store';
import type { JobRecord } from './job-model';

/**
 * The secrets a job started with (`secretInputs`, see JobRecord: those of secret names, and those
 * its workflow or trigger declares) in pages of projected jobs: a page is read with `secretInputs`
 * too ({@link withSecretInputs}); the jobs that have any are masked from their variables, and
 * `secretInputs` is left out of what is answered ({@link maskPageSecrets}).
 */

/** `projection` that also reads `secretInputs` (an internal member the job query projections leave out). */
export function withSecretInputs(projection: Projection): Projection {
  const inclusive = Object.values(projection).some((v) => v === 1);
  if (inclusive) return { ...projection, secretInputs: 1 };
  const { secretInputs: _left, ...rest } = projection;
  return rest;
}

/** True when `projection` (a job query's) gives each job its variables whole: none left out, none picked. */
export function projectsWholeVariables(projection: Projection): boolean {
  return Object.entries(projection).every(([field, value]) => value !== 1 && field !== 'variables' && !field.startsWith('variables.'));
}

/**
 * `items` (jobs read with {@link withSecretInputs}) with the declared secrets of each masked and
 * `secretInputs` left out. The values come from each item's own `variables` (projected whole, see
 * {@link projectsWholeVariables}), or, given `variablesOf`, are read again for the jobs that declare some.
 */
export async function maskPageSecrets<T extends Record<string, unknown>>(
  items: T[],
  variablesOf?: (ids: string[]) => Promise<Pick<JobRecord, '_id' | 'variables'>[]>,
): Promise<T[]> {
  const declaring = items.filter((item) => Array.isArray(item.secretInputs));
  if (declaring.length === 0) return items;
  const variables = new Map(
    variablesOf === undefined
      ? declaring.map((item) => [String(item._id), item.variables])
      : (await variablesOf(declaring.map((item) => String(item._id)))).map((job) => [job._id, job.variables]),
  );
  return items.map((item) => {
    if (!Array.isArray(item.secretInputs)) return item;
    const { secretInputs, ...shown } = item as Record<string, unknown>;
    return maskDeclaredSecrets(shown, 'variables', variables.get(String(item._id)), secretInputs as string[][]) as T;
  });
}

/**
 * The paths of the variables of a child job (`variables`) that hold a secret of its parent (those
 * the parent started with, at its declared paths and by name, and those of secret names its tasks
 * hold), as a text or a number: what makes them secrets of the child too (its `secretInputs`), so
 * that the child masks and seals them as the parent does whatever the names the parent passed them
 * under. Array items are named {@link EVERY}. Undefined when the parent has no secrets, or passed none.
 */
export function inheritedSecretPaths(
  parent: Pick<JobRecord, 'variables' | 'secretInputs' | 'tasks'>,
  variables: Record<string, unknown>,
): string[][] | undefined {
  if (parent.secretInputs === undefined) return undefined;
  const found = findDeclaredSecrets(parent.variables, parent.secretInputs, findSecrets(parent.variables));
  findSecrets(parent.tasks, found);
  if (found.texts.size === 0 && found.pairs.size === 0) return undefined;
  const paths = new Map<string, string[]>();
  holdingSecrets(variables, [], 0, secretMask(found), found.texts, paths);
  return paths.size > 0 ? [...paths.values()] : undefined;
}

function holdingSecrets(
  value: unknown,
  path: string[],
  depth: number,
  mask: SecretMask,
  texts: ReadonlySet<string>,
  paths: Map<string, string[]>,
): void {
  const holds = (typeof value === 'string' && mask.text(value) !== value) || (typeof value === 'number' && texts.has(String(value)));
  if (holds || (depth >= SECRET_WALK_DEPTH && value !== null && typeof value === 'object')) {
    if (path.length > 0) paths.set(JSON.stringify(path), path);
    return;
  }
  if (Array.isArray(value)) for (const item of value) holdingSecrets(item, [...path, EVERY], depth + 1, mask, texts, paths);
  else if (value !== null && typeof value === 'object')
    for (const [name, item] of Object.entries(value)) holdingSecrets(item, [...path, name], depth + 1, mask, texts, paths);
}
