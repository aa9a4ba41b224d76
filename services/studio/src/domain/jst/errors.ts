import { AppError } from '@nap/contracts';
import type { TransformationProblem } from '@nap/contracts';

/** Where a run failed: the step id and what it calls (`Array.map`, `function buildRule`), and the user function it ran in. */
export interface StepRef {
  step: number | string;
  /** `Array.map`, `new Array`, `function buildRule`, `template`, `Conditional.switch`. */
  label: string;
  /** The user function the step belongs to; absent at the top level. */
  fn?: string;
}

function where(ref: StepRef): string {
  return `step ${String(ref.step)} (${ref.label})${ref.fn === undefined ? '' : ` of function "${ref.fn}"`}`;
}

/** A library method refused its arguments: thrown inside a method, located by the runner. */
export class MethodError extends Error {
  override readonly name = 'MethodError';
}

/** The run stopped because a bound was reached (steps, time, size, regular expression time). */
export class LimitError extends Error {
  override readonly name = 'LimitError';
}

/** A step failed: `TRANSFORMATION_STEP_FAILED` (422) whose message starts with the step id and method. */
export function stepFailed(ref: StepRef, message: string, cause?: unknown): AppError {
  return new AppError('TRANSFORMATION_STEP_FAILED', `The transformation failed at ${where(ref)}: ${message}`, {
    details: { step: ref.step, method: ref.label, ...(ref.fn === undefined ? {} : { function: ref.fn }) },
    cause,
  });
}

/** A bound was reached: `TRANSFORMATION_LIMIT_EXCEEDED` (422) naming the limit and the step. */
export function limitExceeded(ref: StepRef | undefined, message: string): AppError {
  return new AppError('TRANSFORMATION_LIMIT_EXCEEDED', ref === undefined ? message : `${message} (at ${where(ref)})`, {
    details: ref === undefined ? {} : { step: ref.step, method: ref.label, ...(ref.fn === undefined ? {} : { function: ref.fn }) },
  });
}

/** The document cannot run: `TRANSFORMATION_INVALID` (400) whose details are the problems `{ code, message, path }`. */
export function invalidTransformation(name: string, errors: readonly TransformationProblem[]): AppError {
  const first = errors[0];
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more problem${errors.length > 2 ? 's' : ''})` : '';
  return new AppError(
    'TRANSFORMATION_INVALID',
    `The transformation "${name}" cannot run: ${first ? `${first.message} at ${first.path || '/'}` : 'it is not valid'}${more}`,
    { details: errors },
  );
}
