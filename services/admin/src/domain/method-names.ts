/**
 * How workflow tasks name the operations of an integration model, as the fixture workflows do:
 * `getV4ProjectsIdRepositoryBranchesBranch` for `GET /api/v4/projects/{id}/repository/branches/{branch}`
 * below the base path `/api`, incoming variables in camelCase (`per_page` → `perPage`), and the
 * task app as the model title with everything but letters and digits removed.
 */

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** True for the members of an OpenAPI path item that are operations. */
export function isHttpMethod(member: string): boolean {
  return (HTTP_METHODS as readonly string[]).includes(member);
}

/** `/api/` → `/api`, `` and `/` → ``. */
export function normalizeBasePath(basePath: string | undefined): string {
  const trimmed = (basePath ?? '').trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/** The path of an operation below the base path (unchanged when it does not start with it). */
export function pathBelow(path: string, basePath: string): string {
  const base = normalizeBasePath(basePath);
  if (base !== '' && (path === base || path.startsWith(`${base}/`))) return path.slice(base.length) || '/';
  return path;
}

function pascalParts(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** The generated method name: the HTTP method (lower case) plus the PascalCase segments of the path below the base path. */
export function methodName(httpMethod: string, path: string, basePath: string): string {
  const segments = pathBelow(path, basePath)
    .split('/')
    .filter((s) => s !== '');
  return httpMethod.toLowerCase() + segments.map((s) => pascalParts(s.replace(/[{}]/g, ''))).join('');
}

/** `per_page` → `perPage`, `X-Request-Id` → `xRequestId`, `sysparm_query` → `sysparmQuery`. */
export function camelCase(name: string): string {
  const parts = name.split(/[^A-Za-z0-9]+/).filter((part) => part !== '');
  return parts
    .map((part, i) => (i === 0 ? part.charAt(0).toLowerCase() + part.slice(1) : part.charAt(0).toUpperCase() + part.slice(1)))
    .join('');
}

/** The task app of a model: its title with everything but letters and digits removed (`GitLab Cloud` → `GitLabCloud`). */
export function appName(title: string): string {
  return title.replace(/[^A-Za-z0-9]/g, '');
}
