import type { JsonSchema } from '../catalog/types';
import { arr, closed, mapOf, obj, str } from './common';

/** Body of `POST /orch_manager/restAction/:adapterId` (operation 5). */
export interface RestActionBody {
  params: {
    path: string;
    /** For example `vnd.yang.data+json`, `yang-data+json`. */
    accept: string;
    /** GET or POST in examples; one schema variant omits it. */
    method?: string;
    contentType?: string;
    [member: string]: unknown;
  };
  body: Record<string, unknown>;
}

/** Body of `POST /orch_manager/restQuery/:adapterId` (operation 6). */
export interface RestQueryBody {
  params: { path: string; accept: string; [member: string]: unknown };
}

/** The `options` values of set leaf (operation 7). */
export const SET_LEAF_OPTIONS = ['outformat', 'async', 'sync', 'no_overwrite', 'staging', 'dryrun'] as const;
/** One of {@link SET_LEAF_OPTIONS}. */
export type SetLeafOption = (typeof SET_LEAF_OPTIONS)[number];

/** Body of `POST /orch_manager/setLeaf/:adapterId` (operation 7): all six members required. */
export interface SetLeafBody {
  /** Key path; variables between exclamation marks, `!name!`. */
  path: string;
  value: string;
  /** Key-value variable definition text. */
  variables: string;
  /** True creates or updates, false deletes. */
  set: boolean;
  dryRun: boolean;
  options: SetLeafOption;
}

/** One item of the rest action result. */
export interface RestActionResultItem {
  /** Status code text. */
  result: string;
  [member: string]: unknown;
}

/** One item of the set leaf result. */
export interface SetLeafResultItem {
  action: string;
  path_raw: string;
  path_evaluated: string;
  value_raw: string;
  value_evaluated: string;
}

/** Body of operation 5: `params` and `body`, nothing else. */
export const restActionBodySchema: JsonSchema = {
  $id: 'nap:schemas/rest-action-body',
  ...closed(
    {
      params: obj(
        {
          path: str({ description: 'orchestrator REST path' }),
          accept: str({ description: 'media type, for example vnd.yang.data+json, vnd.yang.collection+json, vnd.yang.collection+xml, yang-data+json' }),
          method: str({ description: 'GET or POST in examples' }),
          contentType: str({ description: 'media type, for example vnd.yang.data+json, yang-data+json' }),
        },
        ['path', 'accept'],
      ),
      body: { type: 'object', description: 'object passed to the orchestrator' },
    },
    ['params', 'body'],
  ),
};

/** Body of operation 6: only `params` with `path` and `accept`. */
export const restQueryBodySchema: JsonSchema = {
  $id: 'nap:schemas/rest-query-body',
  ...closed(
    {
      params: obj(
        {
          path: str({ description: 'orchestrator REST path' }),
          accept: str({ description: 'media type, for example vnd.yang.data+json, yang-data+json' }),
        },
        ['path', 'accept'],
      ),
    },
    ['params'],
  ),
};

/** Body of operation 7: the six members, all required, nothing else. */
export const setLeafBodySchema: JsonSchema = {
  $id: 'nap:schemas/set-leaf-body',
  ...closed(
    {
      path: str({ description: 'orchestrator key path; a variable is written between exclamation marks, !name!' }),
      value: str({ description: 'value for the path; variables are wrapped in exclamation marks' }),
      variables: str({ description: 'key-value variable definition text' }),
      set: { type: 'boolean', description: 'true creates or updates, false deletes' },
      dryRun: { type: 'boolean', description: 'true performs a dry run, false provisions' },
      options: { type: 'string', enum: [...SET_LEAF_OPTIONS] },
    },
    ['path', 'value', 'variables', 'set', 'dryRun', 'options'],
  ),
};

/** Result of operation 5: array of `{ result }`. */
export const restActionResultSchema: JsonSchema = {
  $id: 'nap:schemas/rest-action-result',
  ...arr(obj({ result: str({ description: 'status code text' }) }, ['result'])),
};

/**
 * Result of operation 6. The spec names an array of results, and its example body is an object with
 * `instance_data` (arbitrary member names, string values); both shapes are accepted.
 */
export const restQueryResultSchema: JsonSchema = {
  $id: 'nap:schemas/rest-query-result',
  anyOf: [{ type: 'array' }, obj({ instance_data: mapOf({ type: 'string' }) })],
};

/** Result of operation 7. */
export const setLeafResultSchema: JsonSchema = {
  $id: 'nap:schemas/set-leaf-result',
  ...arr(
    obj(
      { action: str(), path_raw: str(), path_evaluated: str(), value_raw: str(), value_evaluated: str() },
      ['action', 'path_raw', 'path_evaluated', 'value_raw', 'value_evaluated'],
    ),
  ),
};
