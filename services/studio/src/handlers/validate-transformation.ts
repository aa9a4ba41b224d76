import type { Handler } from '@nap/bus';
import type { StudioContext } from '../context';
import { validateTransformationDocument } from '../domain/transformations';

/** `POST /transformations/validate`: every problem of a document, without saving it. */
export function validateTransformation(_svc: StudioContext): Handler<'studio.validateTransformation'> {
  return async (input) => validateTransformationDocument(input.body);
}
