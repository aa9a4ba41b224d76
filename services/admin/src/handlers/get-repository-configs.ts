import type { Handler } from '@nap/bus';
import { MAX_LIST_LIMIT, listDocuments, toListQuery } from '@nap/store';
import { configView } from '../domain/repository-configs';
import { repositoryConfigs } from '../steps/repositories';
import type { AdminContext } from '../context';

/** `GET /prebuilts-repository/configs`: the prebuilt repositories of the active profile, tokens answered as `********`. */
export function getRepositoryConfigs(svc: AdminContext): Handler<'admin.getRepositoryConfigs'> {
  return async (input) => {
    const all = Object.entries(await repositoryConfigs(svc)).map(([name, c]) => ({ _id: name, ...configView(name, c) }));
    const { items, total } = listDocuments(
      all,
      toListQuery(input.query, {
        filter: ['name', 'type', 'path', 'hostname', 'description'],
        sort: ['name', 'type'],
        defaultSort: { name: 1 },
        defaultLimit: MAX_LIST_LIMIT,
      }),
    );
    return { results: items.map(({ _id: _name, ...config }) => config), total };
  };
}
