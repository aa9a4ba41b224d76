import type { JsonSchema } from '../catalog/types';
import { arr, closed, embed, gbac, name, num, obj, str, timestamp } from './common';

/** Device template of the configuration manager. */
export interface DeviceTemplate {
  id: string;
  name: string;
  /** Template text with placeholders in double braces: `hostname {{ hostname }}`. */
  template: string;
  variables?: Record<string, unknown>;
  created?: string;
  updated?: string;
  createdBy?: string;
  updatedBy?: string;
  gbac?: { write?: string[]; read?: string[] };
  [member: string]: unknown;
}

/** Body of `POST /configuration_manager/templates/search` (operation 12). */
export interface SearchDeviceTemplatesBody {
  name: string;
  /** No members defined by the spec; any object is accepted and unknown members are ignored. */
  options: Record<string, unknown>;
}

/** `{ total, list }` returned by the search (operation 12). */
export interface DeviceTemplateSearchResult {
  total: number;
  list: DeviceTemplate[];
}

/** Device template. */
export const deviceTemplateSchema: JsonSchema = {
  $id: 'nap:schemas/device-template',
  ...obj(
    {
      id: str(),
      name: str(),
      template: str({ description: 'template text with placeholders in double braces' }),
      variables: { type: 'object', description: 'name to value' },
      created: timestamp(),
      updated: timestamp(),
      createdBy: str(),
      updatedBy: str(),
      gbac: gbac(),
    },
    ['id', 'name', 'template'],
  ),
};

/** Body of operation 12: `name` and `options`, nothing else. `options` defines no members: any object passes. */
export const searchDeviceTemplatesBodySchema: JsonSchema = {
  $id: 'nap:schemas/search-device-templates-body',
  ...closed(
    {
      name: str({ description: 'name of the device template (substring match)' }),
      options: { type: 'object', description: 'no members defined by the spec; unknown members are ignored' },
    },
    ['name', 'options'],
  ),
};

/** Result of operation 12. */
export const deviceTemplateSearchResultSchema: JsonSchema = {
  $id: 'nap:schemas/device-template-search-result',
  ...obj({ total: num({ minimum: 0 }), list: arr(embed(deviceTemplateSchema)) }, ['total', 'list']),
};

/** Body of the device template create and replace routes (additions). */
export interface DeviceTemplateInput {
  name: string;
  template: string;
  variables?: Record<string, unknown>;
  gbac?: { write?: string[]; read?: string[] };
}

/** Body of `POST /configuration_manager/templates` and `PUT /configuration_manager/templates/:id`. */
export const deviceTemplateInputSchema: JsonSchema = {
  $id: 'nap:schemas/device-template-input',
  ...obj(
    {
      name: name('template name, unique'),
      template: str({ description: 'template text with placeholders in double braces' }),
      variables: { type: 'object', description: 'default values of the placeholders' },
      gbac: gbac(),
    },
    ['name', 'template'],
  ),
};
