import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';
import { COMPONENT_GROUP_KIND, createCamel } from './document-save';
import { importEach } from './import-each';

/** `POST /automation-studio/component-groups/import`: store each component group on its own, reporting per item. */
export function importComponentGroups(deps: StudioDeps): Handler<'studio.importComponentGroups'> {
  return async (input) =>
    importEach(input.body.componentGroups, { one: 'component group', many: 'component groups' }, async (item, index) => ({
      created: await createCamel(deps, COMPONENT_GROUP_KIND, item, input.caller, `body.componentGroups[${index}]`),
    }));
}
