import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { AppError, isValid, prebuiltPackageSchema } from '@nap/contracts';
import type { RepositoryConfig } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import { errorMessage } from '@nap/util';
import type { OfferedPrebuilt } from '../domain/repository-configs';

/** How long a GitLab server may take to answer one request, ms. */
const GITLAB_TIMEOUT_MS = 5_000;

/**
 * Where prebuilt repositories keep their packages: a `local` directory of package files (`*.json`,
 * each `{ metadata, manifest, bundles, readme }`), or a GitLab group whose projects carry a
 * `package.json`, read through the GitLab REST API (v4).
 */
export class PackageSources {
  constructor(private readonly log: Logger) {}

  /** The packages a repository offers (`only`: the one of that name, with its bundles). */
  packages(repository: string, config: RepositoryConfig, only: string | undefined): Promise<OfferedPrebuilt[]> {
    return config.type === 'local' ? this.localPackages(repository, config, only) : gitlabPackages(repository, config, only);
  }

  /** The package files of a local directory; a file that is not a package is left out (and logged). */
  private async localPackages(repository: string, config: RepositoryConfig, only: string | undefined): Promise<OfferedPrebuilt[]> {
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
    const out: OfferedPrebuilt[] = [];
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

function unreachable(repository: string, cause: string, err?: unknown): AppError {
  return new AppError(
    'REPOSITORY_UNREACHABLE',
    `Prebuilt repository "${repository}" cannot be read: ${cause}`,
    err === undefined ? {} : { cause: err },
  );
}

/** The projects of a GitLab group that carry a `package.json`, read through the GitLab REST API (v4). */
async function gitlabPackages(repository: string, config: RepositoryConfig, only: string | undefined): Promise<OfferedPrebuilt[]> {
  const base = `${config.protocol ?? 'https'}://${config.hostname ?? ''}/api/v4`;
  const headers: Record<string, string> = config.credentials?.token ? { 'private-token': config.credentials.token } : {};
  const get = async (route: string): Promise<{ status: number; body: unknown }> => {
    let res: Response;
    try {
      res = await fetch(`${base}${route}`, { headers, signal: AbortSignal.timeout(GITLAB_TIMEOUT_MS) });
    } catch (err) {
      const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : errorMessage(err);
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
  const out: OfferedPrebuilt[] = [];
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
