import type { Static } from '@sinclair/typebox';
import { anyObject, arr, closed, embed, gbac, num, obj, open, printableName, str, timestamp, withId } from './common';

/** Device template of the configuration manager. */
export const deviceTemplateSchema = withId(
  'nap:schemas/device-template',
  open(
    {
      id: str(),
      name: str(),
      template: str({ description: 'template text with placeholders in double braces' }),
      variables: anyObject('name to value'),
      created: timestamp(),
      updated: timestamp(),
      createdBy: str(),
      updatedBy: str(),
      gbac: gbac(),
    },
    ['id', 'name', 'template'],
  ),
);
/** Device template of the configuration manager; `template` holds placeholders in double braces: `hostname {{ hostname }}`. */
export type DeviceTemplate = Static<typeof deviceTemplateSchema>;

/** Body of `POST /configuration_manager/templates/search`: `name` and `options`, nothing else. `options` defines no members: any object passes. */
export const searchDeviceTemplatesBodySchema = withId(
  'nap:schemas/search-device-templates-body',
  closed(
    {
      name: str({ description: 'name of the device template (substring match)' }),
      options: anyObject('no members defined by the spec; unknown members are ignored'),
    },
    ['name', 'options'],
  ),
);
/** Body of `POST /configuration_manager/templates/search`. */
export type SearchDeviceTemplatesBody = Static<typeof searchDeviceTemplatesBodySchema>;

/** Result of `POST /configuration_manager/templates/search`. */
export const deviceTemplateSearchResultSchema = withId(
  'nap:schemas/device-template-search-result',
  obj({ total: num({ minimum: 0 }), list: arr(embed(deviceTemplateSchema)) }, ['total', 'list']),
);
/** `{ total, list }` returned by `POST /configuration_manager/templates/search`. */
export type DeviceTemplateSearchResult = Static<typeof deviceTemplateSearchResultSchema>;

/** Body of `POST /configuration_manager/templates` and `PUT /configuration_manager/templates/:id`. */
export const deviceTemplateInputSchema = withId(
  'nap:schemas/device-template-input',
  obj(
    {
      name: printableName('template name, unique'),
      template: str({ description: 'template text with placeholders in double braces' }),
      variables: anyObject('default values of the placeholders'),
      gbac: gbac(),
    },
    ['name', 'template'],
  ),
);
/** Body of the device template create and replace routes (additions). */
export type DeviceTemplateInput = Static<typeof deviceTemplateInputSchema>;
