import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { AppError, SECRET_MASK, isValid, prebuiltPackageSchema } from '@nap/contracts';
import type { BodyOf, ListQueryOptions, Profile, QueryOf, RepositoryConfig, ResponseOf } from '@nap/contracts';
import { MAX_LIST_LIMIT, listDocuments, toListQuery } from '@nap/store';
import type { Logger } from '@nap/telemetry';
import { invalidMember } from './validation-error';

/** A repository configuration as the routes answer it: its name, never its token. */
export type RepositoryConfigView = ResponseOf<'admin.getRepositoryConfigs'>['results'][number];
/** One package a repository offers. */
export type RepositoryPrebuilt = ResponseOf<'admin.getRepositoryPrebuilts'>['results'][number];

/** What the repository routes need of the profiles: the active profile (secrets opened) and its replacement. */
export interface ActiveProfileStore {
  activeProfile(): Promise<Profile>;
  update(id: string, profile: Profile, by: string): Promise<unknown>;
}

/** The installed prebuilt of a package name, if any. */
export type InstalledLookup = (name: string) => Promise<{ id: string; version: string } | null>;

/** How long a GitLab server may take to answer one request, ms. */
const GITLAB_TIMEOUT_MS = 5_000;

type Configs = Record<string, RepositoryConfig>;

/**
 * Prebuilt repositories: configurations kept in the active profile (`prebuiltProps.repoConfigs`,
 * tokens sealed by the profile store) and the packages they offer. A `local` repository is a
 * directory of package files (`*.json`, each `{ metadata, manifest, bundles, readme }`); a `gitlab`
 * repository is a group whose projects carry a `package.json`.
 */
export class RepositoryDomain {
  constructor(
    private readonly profiles: ActiveProfileStore,
    private readonly installed: InstalledLookup,
    private readonly log: Logger,
  ) {}

  async list(query: ListQueryOptions): Promise<{ results: RepositoryConfigView[]; total: number }> {
    const all = Object.entries(await this.configs()).map(([name, c]) => ({ _id: name, ...view(name, c) }));
    const { items, total } = listDocuments(
      all,
      toListQuery(query, {
        filter: ['name', 'type', 'path', 'hostname', 'description'],
        sort: ['name', 'type'],
        defaultSort: { name: 1 },
        defaultLimit: MAX_LIST_LIMIT,
      }),
    );
    return { results: items.map(({ _id: _name, ...config }) => config), total };
  }

  async create(input: BodyOf<'admin.createRepositoryConfig'>['config'], by: string): Promise<RepositoryConfigView> {
    const { name, ...config } = input;
    checkName(name);
    const configs = await this.configs();
    if (Object.hasOwn(configs, name))
      throw new AppError('REPOSITORY_CONFIG_ALREADY_EXISTS', `A prebuilt repository named "${name}" exists in the active profile`);
    if (config.credentials?.token === SECRET_MASK)
      throw invalidMember('body.config.credentials.token', `is ${SECRET_MASK}; give the token itself`);
    const stored = checked({ enabled: true, ...config }, 'body.config');
    await this.save({ ...configs, [name]: stored }, by);
    return view(name, stored);
  }

  async update(name: string, patch: BodyOf<'admin.updateRepositoryConfig'>['config'], by: string): Promise<RepositoryConfigView> {
    const configs = await this.configs();
    const current = configOf(configs, name);
    const token = patch.credentials?.token;
    // a token sent back as ******** keeps the stored one
    const credentials = token === SECRET_MASK ? current.credentials : (patch.credentials ?? current.credentials);
    const next = checked({ ...current, ...patch, ...(credentials !== undefined ? { credentials } : {}) }, 'body.config');
    await this.save({ ...configs, [name]: next }, by);
    return view(name, next);
  }

  async remove(name: string, by: string): Promise<void> {
    const configs = await this.configs();
    configOf(configs, name);
    const { [name]: _gone, ...rest } = configs;
    await this.save(rest, by);
  }

  /** `GET /prebuilts-repository`: the packages of one repository (or of every enabled one), with the installed version of each. */
  async packages(query: QueryOf<'admin.getRepositoryPrebuilts'>): Promise<{ results: RepositoryPrebuilt[]; total: number }> {
    const configs = await this.configs();
    const chosen =
      query.config !== undefined
        ? [[query.config, configOf(configs, query.config)] as const]
        : Object.entries(configs).filter(([, c]) => c.enabled !== false);
    const all: RepositoryPrebuilt[] = [];
    for (const [name, config] of chosen) {
      const packages =
        config.type === 'local' ? await this.localPackages(name, config, query.name) : await gitlabPackages(name, config, query.name);
      for (const p of packages) all.push({ ...p, installed: await this.installed(String(p.metadata.name)) });
    }
    const wanted = (query.name === undefined ? all : all.filter((p) => p.metadata.name === query.name)).map((p) => ({
      _id: `${p.repository}\u0000${String(p.metadata.name)}`,
      ...p,
    }));
    const fields = {
      filter: ['metadata.name', 'metadata.version', 'metadata.description', 'repository'],
      sort: ['metadata.name', 'repository'],
      defaultSort: { 'metadata.name': 1, repository: 1 },
      defaultLimit: MAX_LIST_LIMIT,
    } as const;
    const { items, total } = listDocuments(wanted, toListQuery(query, fields));
    return { results: items.map(({ _id: _key, ...p }) => p), total };
  }

  private async configs(): Promise<Configs> {
    return { ...((await this.profiles.activeProfile()).prebuiltProps?.repoConfigs ?? {}) };
  }

  private async save(repoConfigs: Configs, by: string): Promise<void> {
    const profile = await this.profiles.activeProfile();
    await this.profiles.update(profile.id, { ...profile, prebuiltProps: { ...profile.prebuiltProps, repoConfigs } }, by);
  }

  /** The package files of a local directory; a file that is not a package is left out (and logged). */
  private async localPackages(
    repository: string,
    config: RepositoryConfig,
    only: string | undefined,
  ): Promise<Omit<RepositoryPrebuilt, 'installed'>[]> {
    let files: string[];
    try {
      files = (await readdir(config.path)).filter((f) => f.endsWith('.json')).sort();
    } catch (err) {
      throw unreachable(
        repository,
        `directory ${config.path} cannot be read (${err instanceof Error && 'code' in err ? String(err.code) : String(err)})`,
        err,
      );
    }
    const out: Omit<RepositoryPrebuilt, 'installed'>[] = [];
    for (const file of files) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(await readFile(path.join(config.path, file), 'utf8'));
      } catch (err) {
        this.log.warn({ err, repository, file }, 'A file of a prebuilt repository is not JSON; left out');
        continue;
      }
      if (!isValid(prebuiltPackageSchema, parsed)) {
        this.log.warn({ repository, file }, 'A file of a prebuilt repository is not a prebuilt package; left out');
        continue;
      }
      const { metadata, manifest, readme, bundles } = parsed;
      const one = only !== undefined && metadata.name === only;
      out.push({ repository, metadata, manifest: manifest ?? {}, readme: readme ?? '', ...(one ? { bundles } : {}) });
    }
    return out;
  }
}

/** Names are keys of the profile document: no dots, no leading `$`, nothing an object inherits. */
function checkName(name: string): void {
  if (name.includes('.') || name.startsWith('$') || name === '__proto__' || name === 'constructor' || name === 'prototype') {
    throw invalidMember('body.config.name', `"${name}" cannot name a repository: use letters, digits, - and _ (no dots, no leading $)`);
  }
}

/** The members each type needs: an absolute directory for `local`, a hostname for `gitlab`. */
function checked(config: RepositoryConfig, at: string): RepositoryConfig {
  if (config.type === 'local' && !path.isAbsolute(config.path))
    throw invalidMember(`${at}.path`, `"${config.path}" is not an absolute directory`);
  if (config.type === 'gitlab' && (config.hostname === undefined || config.hostname === ''))
    throw invalidMember(`${at}.hostname`, 'is required for a gitlab repository (for example gitlab.com)');
  return config;
}

function configOf(configs: Configs, name: string): RepositoryConfig {
  const config = Object.hasOwn(configs, name) ? configs[name] : undefined;
  if (config === undefined)
    throw new AppError(
      'REPOSITORY_CONFIG_NOT_FOUND',
      `No prebuilt repository named "${name}" in the active profile${Object.keys(configs).length > 0 ? ` (repositories: ${Object.keys(configs).sort().join(', ')})` : ''}`,
    );
  return config;
}

function view(name: string, config: RepositoryConfig): RepositoryConfigView {
  const { credentials, ...rest } = config;
  return {
    name,
    ...rest,
    enabled: config.enabled !== false,
    ...(credentials?.token !== undefined ? { credentials: { token: SECRET_MASK } } : {}),
  };
}

function unreachable(repository: string, cause: string, err?: unknown): AppError {
  return new AppError(
    'REPOSITORY_UNREACHABLE',
    `Prebuilt repository "${repository}" cannot be read: ${cause}`,
    err === undefined ? {} : { cause: err },
  );
}

/** The projects of a GitLab group that carry a `package.json`, read through the GitLab REST API (v4). */
async function gitlabPackages(
  repository: string,
  config: RepositoryConfig,
  only: string | undefined,
): Promise<Omit<RepositoryPrebuilt, 'installed'>[]> {
  const base = `${config.protocol ?? 'https'}://${config.hostname ?? ''}/api/v4`;
  const headers: Record<string, string> = config.credentials?.token ? { 'private-token': config.credentials.token } : {};
  const get = async (route: string): Promise<{ status: number; body: unknown }> => {
    let res: Response;
    try {
      res = await fetch(`${base}${route}`, { headers, signal: AbortSignal.timeout(GITLAB_TIMEOUT_MS) });
    } catch (err) {
      const cause =
        err instanceof Error && err.cause instanceof Error ? err.cause.message : err instanceof Error ? err.message : String(err);
      throw unreachable(repository, `GitLab at ${config.protocol ?? 'https'}://${config.hostname ?? ''} does not answer (${cause})`, err);
    }
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: kept as text for the message
    }
    return { status: res.status, body };
  };
  const projects = await get(`/groups/${encodeURIComponent(config.path)}/projects?per_page=100&include_subgroups=true`);
  if (projects.status !== 200 || !Array.isArray(projects.body))
    throw unreachable(repository, `GitLab answered ${projects.status} for group "${config.path}"`);
  const out: Omit<RepositoryPrebuilt, 'installed'>[] = [];
  for (const project of projects.body) {
    if (typeof project !== 'object' || project === null || !('id' in project)) continue;
    const ref = 'default_branch' in project && typeof project.default_branch === 'string' ? project.default_branch : 'main';
    const file = await get(`/projects/${String(project.id)}/repository/files/package.json/raw?ref=${encodeURIComponent(ref)}`);
    const metadata = file.body;
    if (
      file.status !== 200 ||
      typeof metadata !== 'object' ||
      metadata === null ||
      !('name' in metadata) ||
      typeof metadata.name !== 'string'
    )
      continue;
    if (only !== undefined && metadata.name !== only) continue;
    out.push({ repository, metadata: { ...metadata }, manifest: {}, readme: '' });
  }
  return out;
}
