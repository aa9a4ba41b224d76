import { parseAs, transformationInputSchema } from '@nap/contracts';
import type { Caller, Transformation, TransformationProblem } from '@nap/contracts';
import { keepableId } from '../domain/documents';
import { checkTransformation, toStoredTransformation } from '../domain/transformations';
import { invalidTransformation } from '../domain/jst';
import { checked } from './checked';
import type { StudioDeps } from './deps';

/** A checked, runnable transformation ready to store, with the warnings of its check. */
interface Accepted {
  doc: ReturnType<typeof checkTransformation>['doc'];
  warnings: TransformationProblem[];
}

/**
 * The submitted document as a runnable transformation: 400 VALIDATION_FAILED when it is not a
 * transformation document at all, 400 TRANSFORMATION_INVALID (details: every problem with its path)
 * when a step cannot run.
 */
export function acceptTransformation(input: unknown, member: string): Accepted {
  const parsed = checked('transformation', input, () => parseAs(transformationInputSchema, input, member));
  const { doc, errors, warnings } = checkTransformation(parsed);
  if (errors.length > 0) throw invalidTransformation(doc.name, errors);
  return { doc, warnings };
}

/** Checks and stores a new transformation; its `_id` is kept when it is a plain word. 409 when the name or id is taken. */
export async function insertTransformation(
  deps: StudioDeps,
  input: unknown,
  caller: Caller,
  member = 'body',
): Promise<{ created: Transformation; warnings: TransformationProblem[] }> {
  const { doc, warnings } = acceptTransformation(input, member);
  const created = await deps.transformations.insert(
    toStoredTransformation(doc, keepableId(doc._id) ?? deps.newId(), { by: caller.username, at: deps.now() }),
  );
  return { created, warnings };
}

/** Checks and replaces the transformation with id `id`; its creation stamp stays. */
export async function replaceTransformation(deps: StudioDeps, id: string, input: unknown, caller: Caller): Promise<Transformation> {
  const current = await deps.transformations.get(id);
  const { doc } = acceptTransformation(input, 'body');
  const stored = await deps.transformations.replace(
    toStoredTransformation(
      doc,
      id,
      { by: caller.username, at: deps.now() },
      { _id: id, created: current.created, createdBy: current.createdBy },
    ),
  );
  deps.jst.forget(id);
  return stored;
}
