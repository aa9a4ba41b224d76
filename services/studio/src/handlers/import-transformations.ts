import type { Handler } from '@nap/bus';
import { insertTransformation } from '../context';
import type { StudioContext } from '../context';
import { importEach } from '../domain/import-results';

/**
 * `POST /transformations/import`: store each transformation as exported (`_id` and name kept, so
 * workflow tasks that name one by `tr_id` find it); per-item outcome, problems of a refused item.
 */
export function importTransformations(svc: StudioContext): Handler<'studio.importTransformations'> {
  return async (input, ctx) =>
    importEach(
      input.body.transformations,
      { one: 'transformation', many: 'transformations' },
      { ctx, kind: 'transformation' },
      async (item, index) => ({
        created: (await insertTransformation(svc, item, input.caller, `body.transformations[${index}]`)).created,
      }),
    );
}
