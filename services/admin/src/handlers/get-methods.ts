import type { Handler } from '@nap/bus';
import { listDocuments, toListQuery } from '@nap/store';
import type { ListFields } from '@nap/store';
import { METHODS } from '../domain/roles';
import type { MethodView } from '../domain/roles';
import type { AdminContext } from '../context';

const METHOD_LIST_FIELDS: ListFields = { filter: ['name', 'provenance'], sort: ['name', 'provenance'], defaultSort: {} };

/** `GET /authorization/methods`: every method a custom role can allow, by provenance then name; all of them unless a limit is given. */
export function getMethods(_svc: AdminContext): Handler<'admin.getMethods'> {
  return async (input) => {
    const query = toListQuery(input.query, METHOD_LIST_FIELDS);
    // ipctl reads one page and checks a role's methods against it: without a limit, every method
    if (input.query.limit === undefined || input.query.limit === 0) query.limit = METHODS.methods.length;
    const { items, total } = listDocuments(
      METHODS.methods.map((method) => ({ _id: `${method.provenance}.${method.name}`, ...method })),
      query,
    );
    return { results: items.map(({ _id, ...method }): MethodView => method), total };
  };
}
