import type { Handler } from '@nap/bus';
import { insertTransformation } from '../context';
import type { StudioContext } from '../context';

/** `POST /transformations`: check and store a transformation (the bare document); answers the stored one. */
export function createTransformation(svc: StudioContext): Handler<'studio.createTransformation'> {
  return async (input) => (await insertTransformation(svc, input.body, input.caller)).created;
}
