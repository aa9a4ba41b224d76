import type { Handler } from '@nap/bus';
import { importTransformationsEach } from '../context';
import type { StudioContext } from '../context';

/** `studio.importTransformations` (bus-only, the prebuilt installer's): `{ transformations }`, reported per item. */
export function importTransformations(svc: StudioContext): Handler<'studio.importTransformations'> {
  return async (input, ctx) => importTransformationsEach(svc, input.body.transformations, input.caller, ctx);
}
