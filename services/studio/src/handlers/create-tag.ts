import type { Handler } from '@nap/bus';
import { auditChanges } from '@nap/contracts';
import { stampOf } from '../context';
import type { StudioContext } from '../context';

/** `POST /tags/create`: a new tag from `{ data: { name, description } }`; 409 `TAG_ALREADY_EXISTS` when the name is taken. */
export function createTag(svc: StudioContext): Handler<'studio.createTag'> {
  return async (input, ctx) => {
    const { name, description = '' } = input.body.data;
    const { by, at } = stampOf(svc, input.caller);
    const tag = await svc.tags.insert({
      _id: svc.newId(),
      name,
      description,
      created: at,
      createdBy: by,
      lastUpdated: at,
      lastUpdatedBy: by,
    });
    ctx.audit({ target: { kind: 'tag', id: tag._id, name }, changes: auditChanges({}, { name, description }) });
    return tag;
  };
}
