import type SwaggerParserType from '@apidevtools/swagger-parser';
import type * as Swagger2OpenApi from 'swagger2openapi';
import type { ModelFinding } from '@nap/contracts';
import { errorMessage, isRecord, onFirstUse } from '@nap/util';
import { isHttpMethod, methodName, normalizeBasePath } from './method-names';
import { specFindings } from './openapi-rules';

// the OpenAPI parser and converter load with the first document read (onFirstUse), not at every start
// eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
const swaggerParser = onFirstUse(() => require('@apidevtools/swagger-parser') as typeof SwaggerParserType);
// eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
const swagger2openapi = onFirstUse(() => require('swagger2openapi') as typeof Swagger2OpenApi);

/** A JSON object of an OpenAPI document. */
export type Json = Record<string, unknown>;

/** What checking a document found: the 3.x form the platform calls with, findings that refuse it, and findings only reported. */
export interface ModelCheck {
  valid: boolean;
  errors: ModelFinding[];
  warnings: ModelFinding[];
  /** The document as OpenAPI 3.x (a 2.0 document converted); present when it could be read at all. */
  openapi?: Json;
  /** `swagger 2.0`, `openapi 3.0.1`, … as imported. */
  specification?: string;
}

/** Findings answered at most, of each kind; beyond, one more says how many were left out. */
const MAX_FINDINGS = 1_000;

/**
 * Most JSON values a document may stand for once its internal `$ref`s are replaced by what they
 * point to. The parser validates the dereferenced document, and the platform compiles validators
 * from it: a few kilobytes of schemas that each name the one before twice stand for billions of
 * values and would hold the service for hours. The largest real models (GitLab's, 2.4 MB) stand for
 * about 150 000.
 */
export const MAX_EXPANDED_VALUES = 1_000_000;

/**
 * Most references a reference may lead through before it reaches a schema without one (a chain
 * `a` → `b` → `c` … is walked recursively by the parser, and overflows its stack past a few
 * thousand); real models nest a few dozen.
 */
export const MAX_REFERENCE_DEPTH = 500;

/** What expanding a document's internal references would make of it. */
export interface ReferenceExpansion {
  /** JSON values the expanded document holds; counting stops once past the limit. */
  values: number;
  /** Deepest chain of references followed; counting stops once past {@link MAX_REFERENCE_DEPTH}. */
  depth: number;
}

/**
 * How many JSON values `document` stands for with its internal `$ref`s expanded, and how deep its
 * references chain. Each reference target is counted once (memoised by pointer), so this runs in
 * time proportional to the document; a reference back into one being expanded (circular, left as
 * `$ref` by the parser) counts as one value.
 */
export function referenceExpansion(document: unknown, limit = MAX_EXPANDED_VALUES): ReferenceExpansion {
  const sizes = new Map<string, number>();
  const expanding = new Set<string>();
  let depth = 0;
  const target = (pointer: string): unknown => {
    let value: unknown = document;
    for (const raw of pointer.split('/').slice(1)) {
      if (typeof value !== 'object' || value === null) return undefined;
      let segment = raw;
      try {
        segment = decodeURIComponent(raw);
      } catch {
        // not percent-encoded: the segment as written
      }
      const key = decodePointer(segment);
      value = Object.hasOwn(value, key) ? (value as Json)[key] : undefined;
    }
    return value;
  };
  const count = (value: unknown): number => {
    if (typeof value !== 'object' || value === null) return 1;
    const ref = (value as Json).$ref;
    if (!Array.isArray(value) && typeof ref === 'string' && ref.startsWith('#')) {
      const pointer = ref.slice(1);
      const known = sizes.get(pointer);
      if (known !== undefined) return known;
      if (expanding.has(pointer)) return 1;
      depth = Math.max(depth, expanding.size + 1);
      // too deep: counted as past the limit, and not followed further
      if (depth > MAX_REFERENCE_DEPTH) return limit + 1;
      expanding.add(pointer);
      const size = count(target(pointer));
      expanding.delete(pointer);
      sizes.set(pointer, size);
      return size;
    }
    let total = 1;
    for (const member of Object.values(value)) {
      total += count(member);
      if (total > limit) break;
    }
    return total;
  };
  return { values: count(document), depth };
}

/** The parser must never read files or URLs named by a document (`$ref: file:///…` or `http://…`): only internal references resolve. */
const PARSER_OPTIONS = { resolve: { external: false, file: false, http: false } } as const;

/**
 * Responses are never validated (the platform checks what it sends, not what it receives), so
 * findings that lie only in responses, or in component schemas that no parameter or request body
 * reaches, are reported as warnings rather than refusing real documents such as GitLab's
 * (`type: text` in response models).
 */
function isResponseOnlyFinding(finding: ModelFinding, requestSchemas: ReadonlySet<string>): boolean {
  const { path } = finding;
  // responses that are not an object, or a response that is not one, are no slip: nothing can be read from them
  if (/^\/paths\/[^/]+\/[^/]+\/responses$/.test(path) || /^\/components\/responses$/.test(path)) return false;
  if (/^\/(paths\/[^/]+\/[^/]+|components)\/responses\/[^/]+$/.test(path) && finding.message === 'must be object') return false;
  // the branches Ajv tried for a response object (Response or Reference) are reported on the response itself
  if (/^\/paths\/[^/]+\/[^/]+\/responses\//.test(path) || /^\/components\/responses\//.test(path)) return true;
  const m = /^\/components\/schemas\/([^/]+)/.exec(path);
  return m !== null && !requestSchemas.has(decodePointer(m[1] ?? ''));
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Names of the component schemas that parameters and request bodies reach, through any number of `$ref`s. */
function requestSchemaNames(openapi: Json): Set<string> {
  const names = new Set<string>();
  const components = isRecord(openapi.components) ? openapi.components : {};
  const seen = new Set<unknown>();
  const walk = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const v of value) walk(v);
      return;
    }
    const ref = (value as Json).$ref;
    if (typeof ref === 'string') {
      const m = /^#\/components\/([^/]+)\/([^/]+)$/.exec(ref);
      if (m !== null) {
        const kind = m[1] ?? '';
        const name = decodePointer(m[2] ?? '');
        if (kind === 'schemas') names.add(name);
        const group = components[kind];
        if (isRecord(group)) walk(group[name]);
      }
    }
    for (const v of Object.values(value)) walk(v);
  };
  const paths = isRecord(openapi.paths) ? openapi.paths : {};
  for (const item of Object.values(paths)) {
    if (!isRecord(item)) continue;
    walk(item.parameters);
    for (const [member, op] of Object.entries(item)) if (isHttpMethod(member) && isRecord(op)) walk([op.parameters, op.requestBody]);
  }
  return names;
}

interface ParserDetail {
  instancePath?: unknown;
  message?: unknown;
}

function findingsOf(err: unknown): ModelFinding[] {
  const details = isRecord(err) && Array.isArray(err.details) ? (err.details as ParserDetail[]) : [];
  if (details.length === 0)
    return [{ path: '', message: err instanceof Error ? (err.message.split('\n')[0] ?? err.message) : String(err) }];
  const seen = new Set<string>();
  const out: ModelFinding[] = [];
  for (const d of details) {
    const f = {
      path: typeof d.instancePath === 'string' ? d.instancePath : '',
      message: typeof d.message === 'string' ? d.message : 'is not valid',
    };
    const key = `${f.path} ${f.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(f);
    }
  }
  return out;
}

/**
 * Checks an OpenAPI 2.0, 3.0 or 3.1 document with a maintained parser (`@apidevtools/swagger-parser`),
 * converting 2.0 to 3.0 first with `swagger2openapi` (which also patches the small errors such
 * documents commonly carry, as the platforms that exported them accepted them), then the rules of
 * the paths its schema cannot state ({@link specFindings}). Findings carry a JSON pointer: into
 * the (converted) document for the schema's, into the document as sent for the paths' rules.
 */
export async function checkModel(document: Json): Promise<ModelCheck> {
  const info = isRecord(document.info) ? document.info : undefined;
  const basics: ModelFinding[] = [];
  if (typeof document.swagger !== 'string' && typeof document.openapi !== 'string')
    basics.push({ path: '', message: 'must have a swagger (2.0) or openapi (3.x) member' });
  if (typeof info?.title !== 'string' || info.title.trim() === '')
    basics.push({ path: '/info/title', message: 'must be a non-empty string: it names the model' });
  if (info?.version === undefined || (typeof info.version !== 'string' && typeof info.version !== 'number'))
    basics.push({ path: '/info/version', message: 'must be a string: it names the model version' });
  if (basics.length > 0) return { valid: false, errors: basics, warnings: [] };

  // before any parser walks it: a document whose references expand without bound is refused here
  const expansion = referenceExpansion(document);
  if (expansion.depth > MAX_REFERENCE_DEPTH)
    return {
      valid: false,
      errors: [{ path: '', message: `its $ref references chain more than ${MAX_REFERENCE_DEPTH} deep: shorten the chains` }],
      warnings: [],
    };
  if (expansion.values > MAX_EXPANDED_VALUES)
    return {
      valid: false,
      errors: [
        {
          path: '',
          message: `its $ref references expand to more than ${MAX_EXPANDED_VALUES} values (schemas that reference one another many times over): reference each schema fewer times`,
        },
      ],
      warnings: [],
    };

  let openapi: Json;
  const specification = typeof document.swagger === 'string' ? `swagger ${document.swagger}` : `openapi ${String(document.openapi)}`;
  if (typeof document.swagger === 'string') {
    try {
      const converted = await swagger2openapi().convertObj(
        structuredClone(document) as never,
        { patch: true, warnOnly: true, resolve: false } as never,
      );
      openapi = converted.openapi as unknown as Json;
    } catch (err) {
      return {
        valid: false,
        errors: [{ path: '', message: `cannot be converted to OpenAPI 3: ${errorMessage(err)}` }],
        warnings: [],
        specification,
      };
    }
  } else {
    openapi = structuredClone(document);
  }
  let findings: ModelFinding[] = [];
  try {
    await swaggerParser().validate(structuredClone(openapi) as never, PARSER_OPTIONS as never);
  } catch (err) {
    findings = findingsOf(err);
  }
  const requestSchemas = requestSchemaNames(openapi);
  // the structure the platform calls with is sound when every finding lies in response schemas;
  // a parser finding without a path (a broken reference) and a broken rule of the paths always refuse
  // the path rules are checked on the document as sent: a 2.0 conversion may drop what they look at
  const errors = [...findings.filter((f) => !isResponseOnlyFinding(f, requestSchemas)), ...specFindings(document)];
  const warnings = findings.filter((f) => isResponseOnlyFinding(f, requestSchemas));
  return { valid: errors.length === 0, errors: capped(errors), warnings: capped(warnings), openapi, specification };
}

/** At most {@link MAX_FINDINGS}, and then one that says how many more there were. */
function capped(findings: ModelFinding[]): ModelFinding[] {
  if (findings.length <= MAX_FINDINGS) return findings;
  return [...findings.slice(0, MAX_FINDINGS), { path: '', message: `and ${findings.length - MAX_FINDINGS} more findings` }];
}

/** The document with every internal `$ref` replaced by what it points to; circular ones stay `$ref`. */
export async function dereferenceModel(openapi: Json): Promise<Json> {
  return (await swaggerParser().dereference(
    structuredClone(openapi) as never,
    { ...PARSER_OPTIONS, dereference: { circular: 'ignore' } } as never,
  )) as unknown as Json;
}

/** One operation of a model. */
export interface ModelOperation {
  /** Upper case. */
  method: string;
  path: string;
  operationId?: string;
  /** The operation object, dereferenced, with the path item's parameters merged in. */
  operation: Json;
}

/** Every operation of a (dereferenced) 3.x document. */
export function operationsOf(openapi: Json): ModelOperation[] {
  const out: ModelOperation[] = [];
  const paths = isRecord(openapi.paths) ? openapi.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isRecord(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters.filter(isRecord) : [];
    for (const [member, operation] of Object.entries(item)) {
      if (!isHttpMethod(member) || !isRecord(operation)) continue;
      const own = Array.isArray(operation.parameters) ? operation.parameters.filter(isRecord) : [];
      const key = (p: Json) => `${String(p.in)}:${String(p.name)}`;
      const ownKeys = new Set(own.map(key));
      const parameters = [...shared.filter((p) => !ownKeys.has(key(p))), ...own];
      out.push({
        method: member.toUpperCase(),
        path,
        ...(typeof operation.operationId === 'string' ? { operationId: operation.operationId } : {}),
        operation: { ...operation, parameters },
      });
    }
  }
  return out;
}

/** The first server of a document as settings: protocol, host, port, base path, its variables at their defaults. */
export function defaultServer(openapi: Json): { protocol?: 'http' | 'https'; host?: string; port?: number; base_path: string } {
  const servers = Array.isArray(openapi.servers) ? openapi.servers.filter(isRecord) : [];
  const first = servers[0];
  if (first === undefined || typeof first.url !== 'string') return { base_path: '' };
  let url = first.url;
  const variables = isRecord(first.variables) ? first.variables : {};
  url = url.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const v = variables[name];
    return isRecord(v) && v.default !== undefined ? String(v.default) : '';
  });
  const absolute = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : url.startsWith('//') ? `https:${url}` : undefined;
  if (absolute === undefined) return { base_path: normalizeBasePath(url) };
  try {
    const parsed = new URL(absolute);
    const protocol = parsed.protocol === 'http:' ? 'http' : 'https';
    return {
      protocol,
      host: parsed.hostname,
      port: parsed.port !== '' ? Number(parsed.port) : protocol === 'http' ? 80 : 443,
      base_path: normalizeBasePath(decodeURI(parsed.pathname)),
    };
  } catch {
    return { base_path: '' };
  }
}

/** The methods a task can call, named for `basePath`: generated name, operationId, HTTP method and path. */
export function methodsOf(openapi: Json, basePath: string): { name: string; operationId?: string; method: string; path: string }[] {
  return operationsOf(openapi).map((op) => ({
    name: methodName(op.method, op.path, basePath),
    ...(op.operationId !== undefined ? { operationId: op.operationId } : {}),
    method: op.method,
    path: op.path,
  }));
}
