import type { Handler } from '@nap/bus';
import { auditChanges } from '@nap/contracts';
import { stampOf } from '../context';
import type { StudioContext } from '../context';
import { acceptTransformation, toStoredTransformation } from '../domain/transformations';

/** `PUT /transformations/:id`: replace a transformation with the bare document, checked as on creation; its creation stamp stays. */
export function updateTransformation(svc: StudioContext): Handler<'studio.updateTransformation'> {
  return async (input, ctx) => {
    const { id } = input.params;
    const current = await svc.transformations.get(id);
    const { doc } = acceptTransformation(input.body, 'body');
    const original = { _id: id, created: current.created, createdBy: current.createdBy };
    const stored = await svc.transformations.replace(toStoredTransformation(doc, id, stampOf(svc, input.caller), original));
    ctx.audit({ target: { kind: 'transformation', id, name: stored.name }, changes: auditChanges(current, stored) });
    svc.jst.forget(id);
    return stored;
  };
}
