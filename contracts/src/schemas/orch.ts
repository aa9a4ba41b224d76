import type { Static } from '@sinclair/typebox';
import { Type, anyObject, anyValue, arr, bool, closed, mapOf, obj, oneOf, open, str, withId } from './common';

/** Body of `POST /orch_manager/restAction/:adapterId`: `params` and `body`, nothing else. */
export const restActionBodySchema = withId(
  'nap:schemas/rest-action-body',
  closed(
    {
      params: open(
        {
          path: str({ description: 'orchestrator REST path' }),
          accept: str({
            description: 'media type, for example vnd.yang.data+json, vnd.yang.collection+json, vnd.yang.collection+xml, yang-data+json',
          }),
          method: str({ description: 'GET or POST in examples' }),
          contentType: str({ description: 'media type, for example vnd.yang.data+json, yang-data+json' }),
        },
        ['path', 'accept'],
      ),
      body: anyObject('object passed to the orchestrator'),
    },
    ['params', 'body'],
  ),
);
/** Body of `POST /orch_manager/restAction/:adapterId`. */
export type RestActionBody = Static<typeof restActionBodySchema>;

/** Body of `POST /orch_manager/restQuery/:adapterId`: only `params` with `path` and `accept`. */
export const restQueryBodySchema = withId(
  'nap:schemas/rest-query-body',
  closed(
    {
      params: open(
        {
          path: str({ description: 'orchestrator REST path' }),
          accept: str({ description: 'media type, for example vnd.yang.data+json, yang-data+json' }),
        },
        ['path', 'accept'],
      ),
    },
    ['params'],
  ),
);
/** Body of `POST /orch_manager/restQuery/:adapterId`. */
export type RestQueryBody = Static<typeof restQueryBodySchema>;

/** The `options` values of `POST /orch_manager/setLeaf/:adapterId`. */
export const SET_LEAF_OPTIONS = ['outformat', 'async', 'sync', 'no_overwrite', 'staging', 'dryrun'] as const;
/** One of {@link SET_LEAF_OPTIONS}. */
export type SetLeafOption = (typeof SET_LEAF_OPTIONS)[number];

/** Body of `POST /orch_manager/setLeaf/:adapterId`: the six members, all required, nothing else. */
export const setLeafBodySchema = withId(
  'nap:schemas/set-leaf-body',
  closed(
    {
      path: str({ description: 'orchestrator key path; a variable is written between exclamation marks, !name!' }),
      value: str({ description: 'value for the path; variables are wrapped in exclamation marks' }),
      variables: str({ description: 'key-value variable definition text' }),
      set: bool({ description: 'true creates or updates, false deletes' }),
      dryRun: bool({ description: 'true performs a dry run, false provisions' }),
      options: oneOf(SET_LEAF_OPTIONS),
    },
    ['path', 'value', 'variables', 'set', 'dryRun', 'options'],
  ),
);
/** Body of `POST /orch_manager/setLeaf/:adapterId`: all six members required. */
export type SetLeafBody = Static<typeof setLeafBodySchema>;

function restActionResultItem() {
  return open({ result: str({ description: 'status code text' }) }, ['result']);
}
/** One item of the rest action result. */
export type RestActionResultItem = Static<ReturnType<typeof restActionResultItem>>;

/** Result of `POST /orch_manager/restAction/:adapterId`: array of `{ result }`. */
export const restActionResultSchema = withId('nap:schemas/rest-action-result', arr(restActionResultItem()));

function restQueryResultItem() {
  return open(
    { instance_data: anyValue({ description: "the orchestrator's answer: its JSON, or its text when it answered another media type" }) },
    ['instance_data'],
  );
}

/**
 * Result of `POST /orch_manager/restQuery/:adapterId`. The spec names an array of results, and its example body is an object with
 * `instance_data` (arbitrary member names, string values). NAP answers the array form,
 * `[{ instance_data: <the orchestrator's JSON> }]`; the object form stays valid for clients that
 * were written against the example.
 */
export const restQueryResultSchema = withId(
  'nap:schemas/rest-query-result',
  Type.Union([arr(restQueryResultItem()), obj({ instance_data: mapOf(str()) }, ['instance_data'])]),
);
/** Result of `POST /orch_manager/restQuery/:adapterId`. */
export type RestQueryResult = Static<typeof restQueryResultSchema>;

function setLeafResultItem() {
  return obj(
    {
      action: oneOf(['update', 'delete'], { description: 'update when set is true, delete when it is false' }),
      path_raw: str({ description: 'path as sent, variable markers included' }),
      path_evaluated: str({ description: 'path with the variables substituted' }),
      value_raw: str(),
      value_evaluated: str(),
      dry_run: anyValue({
        description: "the orchestrator's dry-run result, present when a dry run was asked for (dryRun true or options dryrun)",
      }),
    },
    ['action', 'path_raw', 'path_evaluated', 'value_raw', 'value_evaluated'],
  );
}
/** One item of the set leaf result. */
export type SetLeafResultItem = Static<ReturnType<typeof setLeafResultItem>>;

/** Result of `POST /orch_manager/setLeaf/:adapterId`. */
export const setLeafResultSchema = withId('nap:schemas/set-leaf-result', arr(setLeafResultItem()));
