import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import { importTransformationsEach, insertTransformation } from '../context';
import type { StudioContext } from '../context';

/**
 * `POST /transformations/import`: `{ transformations: [...] }` imports each and reports per item; any
 * other body is one transformation document (as ipctl sends it), stored and answered as
 * `POST /transformations` answers it.
 */
export function importTransformation(svc: StudioContext): Handler<'studio.importTransformation'> {
  return async (input, ctx) => {
    const body = input.body;
    if (!('transformations' in body)) {
      const { created } = await insertTransformation(svc, body, input.caller);
      ctx.audit({ target: { kind: 'transformation', id: created._id, name: created.name } });
      return created;
    }
    const { transformations } = body;
    if (!Array.isArray(transformations) || transformations.length === 0 || !transformations.every(isObject)) {
      throw new AppError('VALIDATION_FAILED', 'body.transformations must be an array of at least one transformation document', {
        details: [{ member: 'body.transformations', message: 'must be a non-empty array of objects' }],
      });
    }
    return importTransformationsEach(svc, transformations, input.caller, ctx);
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
