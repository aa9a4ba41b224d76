import type { Handler } from '@nap/bus';
import { stampOf } from '../context';
import type { StudioContext } from '../context';
import { acceptTransformation, toStoredTransformation } from '../domain/transformations';

/** `PUT /transformations/:id`: replace a transformation with the bare document, checked as on creation; its creation stamp stays. */
export function updateTransformation(svc: StudioContext): Handler<'studio.updateTransformation'> {
  return async (input) => {
    const { id } = input.params;
    const current = await svc.transformations.get(id);
    const { doc } = acceptTransformation(input.body, 'body');
    const original = { _id: id, created: current.created, createdBy: current.createdBy };
    const stored = await svc.transformations.replace(toStoredTransformation(doc, id, stampOf(svc, input.caller), original));
    svc.jst.forget(id);
    return stored;
  };
}
