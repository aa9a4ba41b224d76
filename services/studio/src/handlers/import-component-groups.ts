import type { Handler } from '@nap/bus';
import { createCamel } from '../context';
import type { StudioContext } from '../context';
import { COMPONENT_GROUP_KIND } from '../domain/documents';
import { importEach } from '../domain/import-results';

/** `POST /automation-studio/component-groups/import`: store each component group on its own, reporting per item. */
export function importComponentGroups(svc: StudioContext): Handler<'studio.importComponentGroups'> {
  return async (input, ctx) =>
    importEach(
      input.body.componentGroups,
      { one: 'component group', many: 'component groups' },
      { ctx, kind: 'component-group' },
      async (item, index) => ({
        created: await createCamel(svc, svc.componentGroups, COMPONENT_GROUP_KIND, item, input.caller, `body.componentGroups[${index}]`),
      }),
    );
}
