import type { Handler } from '@nap/bus';
import { MAX_LIST_LIMIT, listDocuments, toListQuery } from '@nap/store';
import { configOf } from '../domain/repository-configs';
import type { RepositoryPrebuilt } from '../domain/repository-configs';
import { repositoryConfigs } from '../steps/repositories';
import type { AdminContext } from '../context';

/** `GET /prebuilts-repository`: the packages of one repository (or of every enabled one), with the installed version of each. */
export function getRepositoryPrebuilts(svc: AdminContext): Handler<'admin.getRepositoryPrebuilts'> {
  return async (input) => {
    const { query } = input;
    const configs = await repositoryConfigs(svc);
    const chosen =
      query.config !== undefined
        ? [[query.config, configOf(configs, query.config)] as const]
        : Object.entries(configs).filter(([, c]) => c.enabled !== false);
    const all: RepositoryPrebuilt[] = [];
    for (const [name, config] of chosen) {
      for (const p of await svc.packageSources.packages(name, config, query.name))
        all.push({ ...p, installed: await svc.prebuilts.installedByName(String(p.metadata.name)) });
    }
    const wanted = (query.name === undefined ? all : all.filter((p) => p.metadata.name === query.name)).map((p) => ({
      _id: `${p.repository}\u0000${String(p.metadata.name)}`,
      ...p,
    }));
    const { items, total } = listDocuments(wanted, toListQuery(query, PACKAGE_LIST_FIELDS));
    return { results: items.map(({ _id: _key, ...p }) => p), total };
  };
}

/** What the package list filters and sorts on. */
const PACKAGE_LIST_FIELDS = {
  filter: ['metadata.name', 'metadata.version', 'metadata.description', 'repository'],
  sort: ['metadata.name', 'repository'],
  defaultSort: { 'metadata.name': 1, repository: 1 },
  defaultLimit: MAX_LIST_LIMIT,
} as const;
