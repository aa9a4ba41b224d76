import type { Static } from '@sinclair/typebox';
import { Type, closed, int, mapOf, obj, sortOrder, str, withId } from './common';

/**
 * Query-string schemas. A GET parameter that the spec groups into an object (`queryOptions`,
 * `queryParameters`) arrives as flat query-string members; bracketed operators are parsed by `qs`
 * into nested objects (`equals[status]=running` gives `{ equals: { status: 'running' } }`). The
 * params/query validator coerces strings to numbers and booleans before these schemas apply.
 */

/**
 * The largest `skip` a list query takes: the largest integer a number holds exactly. Beyond it the
 * text `1e20` is no longer the count it names, and MongoDB refuses such a skip (a server error where
 * the caller should be told); past a list's end a page is empty anyway.
 */
export const MAX_SKIP = Number.MAX_SAFE_INTEGER;

function queryOptionsProperties() {
  return {
    contains: str({ description: 'substring match value' }),
    containsField: str({ description: 'field the contains match applies to' }),
    equals: str({ description: 'exact match value' }),
    equalsField: str({ description: 'field the equals match applies to' }),
    startsWith: str({ description: 'prefix match value' }),
    startsWithField: str({ description: 'field the prefix match applies to' }),
    skip: int({ minimum: 0, maximum: MAX_SKIP, description: 'number of items to skip' }),
    limit: int({ minimum: 0, description: 'maximum number of items; the service clamps large values' }),
    sort: str({ description: 'field to sort by' }),
    order: sortOrder(),
  };
}

/**
 * The shared query options of `GET /health/adapters` and `GET /integrations`, as flat query members.
 * No other member is accepted.
 */
export const queryOptionsSchema = withId('nap:schemas/query-options', closed(queryOptionsProperties()));
/** Members of the shared query options (operations 8 and 9). */
export type QueryOptions = Static<typeof queryOptionsSchema>;

/** A filter value: text matched against `<operator>Field`, or field-wise (`equals[name]=x`). */
function filterValue(description: string) {
  return Type.Union([str(), mapOf(str())], {
    description: `${description}; as text with its *Field member, or field-wise: equals[name]=core-1`,
  });
}

/**
 * The same members for the list routes whose query the spec does not show, where `equals`,
 * `contains` and `startsWith` are also accepted field-wise (`equals[name]=core-1`), the way the
 * platform's existing clients write them. Every list route applies these options (`toListQuery` of
 * `@nap/store`, which refuses a field outside the route's filter and sort fields). The schema itself
 * leaves other members to the route: the admin, studio and workflow lists take it closed
 * (`closed({ ...listQuerySchema.properties, ... })`) and refuse any other member with 400
 * VALIDATION_FAILED naming it; a route that takes it as it is ignores them.
 */
export const listQuerySchema = withId(
  'nap:schemas/list-query',
  obj({
    ...queryOptionsProperties(),
    equals: filterValue('exact match value'),
    contains: filterValue('substring match value'),
    startsWith: filterValue('prefix match value'),
  }),
);
/** Members of the list query of the list routes the platform adds. */
export type ListQueryOptions = Static<typeof listQuerySchema>;

function fieldFilter(description: string) {
  return mapOf(str(), { description: `${description}; written field-wise on the wire, for example equals[status]=running` });
}

/**
 * The query of `GET /operations-manager/jobs` as the gateway receives it: `?limit=10&skip=0&equals[status]=running`.
 * Operators are objects of field name to value text (`in`/`not-in` values are comma-separated lists);
 * the service clamps `limit` and explains clamping in the page's `hints`. No other member.
 */
export const jobQueryParametersSchema = withId(
  'nap:schemas/job-query-parameters',
  closed({
    limit: int({ minimum: 0, description: 'page size; the service clamps large values and says so in hints' }),
    skip: int({ minimum: 0, maximum: MAX_SKIP, description: 'items to skip' }),
    after: str({
      description:
        'keyset paging: nextPageAfter of the previous page (same filters, sort and order); the page starts after its last job, at the same cost however deep',
    }),
    order: sortOrder(),
    sort: str({ description: 'field to sort by' }),
    include: str({ description: 'comma-separated field names to include' }),
    exclude: str({ description: 'comma-separated field names to exclude' }),
    in: fieldFilter('field value is one of a comma-separated list'),
    'not-in': fieldFilter('field value is none of a comma-separated list'),
    equals: fieldFilter('field equals the value'),
    contains: fieldFilter('field contains the value'),
    'starts-with': fieldFilter('field starts with the value'),
    'ends-with': fieldFilter('field ends with the value'),
    dereference: str({ description: 'dereference selection' }),
    gt: fieldFilter('field is greater than the value'),
    gte: fieldFilter('field is greater than or equal to the value'),
    lt: fieldFilter('field is less than the value'),
    lte: fieldFilter('field is less than or equal to the value'),
    q: str({ description: 'free-text query' }),
  }),
);
/** Members of the job query of `GET /operations-manager/jobs`. */
export type JobQueryParameters = Static<typeof jobQueryParametersSchema>;
