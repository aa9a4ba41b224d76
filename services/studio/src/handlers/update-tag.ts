import type { Handler } from '@nap/bus';
import { auditChanges } from '@nap/contracts';
import { changedAfter } from '@nap/util';
import type { StudioContext } from '../context';

/** `POST /tags/update`: a new name or description for tag `data._id`; its references stay. */
export function updateTag(svc: StudioContext): Handler<'studio.updateTag'> {
  return async (input, ctx) => {
    const { _id: id, name, description } = input.body.data;
    const current = await svc.tags.get(id);
    const stored = await svc.tags.replace(
      {
        ...current,
        name: name ?? current.name,
        description: description ?? current.description,
        lastUpdated: changedAfter(current.lastUpdated, Date.parse(svc.now())),
        lastUpdatedBy: input.caller.username,
      },
      current,
    );
    ctx.audit({ target: { kind: 'tag', id, name: stored.name }, changes: auditChanges(current, stored) });
    return stored;
  };
}
