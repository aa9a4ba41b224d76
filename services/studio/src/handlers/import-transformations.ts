import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';
import { importEach } from './import-each';
import { insertTransformation } from './transformation-save';

/**
 * `POST /transformations/import`: store each transformation as exported (`_id` and name kept, so
 * workflow tasks that name one by `tr_id` find it); per-item outcome, problems of a refused item.
 */
export function importTransformations(deps: StudioDeps): Handler<'studio.importTransformations'> {
  return async (input) =>
    importEach(input.body.transformations, { one: 'transformation', many: 'transformations' }, async (item, index) => ({
      created: (await insertTransformation(deps, item, input.caller, `body.transformations[${index}]`)).created,
    }));
}
