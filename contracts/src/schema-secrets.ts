/**
 * Secrets a JSON Schema declares, whatever their names: a member of `format: "password"` (what
 * forms and Itential's input schemas give a password field) or `writeOnly: true` (JSON Schema's
 * "sent, never given back"). The platform's secret policy ({@link isSecretKey}) decides by name;
 * a workflow whose inputSchema calls `adminKey` a password field makes it a secret of the jobs
 * started from it too.
 *
 * A declared secret is named by its path from the top of the value the schema describes: member
 * names, and {@link EVERY} for every item of an array or every member an object's
 * `additionalProperties` describes.
 */
import { AppError } from './errors';
import { SECRET_MASK, isSecretKey, isSecretValue } from './secrets';
import { addSecretTexts, noSecrets, secretMask } from './secret-texts';
import type { FoundSecrets } from './secret-texts';
import { isRecord } from './internal/records';

/** The path segment that stands for every item of an array, or every member of an object. */
export const EVERY = '*';

/** Deepest level of a schema or a value walked for declared secrets. */
const MAX_DEPTH = 32;
/** Most declared secrets kept of one schema: beyond, a schema is data, not a form. */
const MAX_PATHS = 256;

type Json = Record<string, unknown>;

function declaresSecret(node: Json): boolean {
  return node.format === 'password' || node.writeOnly === true;
}

/**
 * The paths of the members `schema` declares secret (see the module comment), each once, in the
 * schema's order; none for anything that is not a schema object. Follows `properties`,
 * `additionalProperties`, `items` (a schema or a list of schemas) and the members of `allOf`,
 * `anyOf` and `oneOf`; `$ref` is not followed.
 */
export function declaredSecretPaths(schema: unknown): string[][] {
  const found = new Map<string, string[]>();
  walkSchema(schema, [], 0, found);
  return [...found.values()];
}

function walkSchema(node: unknown, path: string[], depth: number, found: Map<string, string[]>): void {
  if (!isRecord(node) || depth > MAX_DEPTH || found.size >= MAX_PATHS) return;
  if (declaresSecret(node)) {
    found.set(JSON.stringify(path), path);
    return;
  }
  const { properties, additionalProperties, items } = node;
  if (isRecord(properties)) for (const name of Object.keys(properties)) walkSchema(properties[name], [...path, name], depth + 1, found);
  if (isRecord(additionalProperties)) walkSchema(additionalProperties, [...path, EVERY], depth + 1, found);
  if (Array.isArray(items)) for (const item of items) walkSchema(item, [...path, EVERY], depth + 1, found);
  else if (isRecord(items)) walkSchema(items, [...path, EVERY], depth + 1, found);
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = node[keyword];
    if (Array.isArray(list)) for (const sub of list) walkSchema(sub, path, depth + 1, found);
  }
}

/**
 * The paths of the members of `value` that hold a secret by the platform's secret policy: a member
 * of a secret name holding a value (`creds.password`, `hosts.*.gw_password`), or private key
 * material under any name; array items as {@link EVERY}. Each once, at most {@link MAX_PATHS}. What
 * a job starts with: the job then masks every copy of those values too, not only the members.
 */
export function namedSecretPaths(value: unknown): string[][] {
  const found = new Map<string, string[]>();
  const walk = (item: unknown, path: string[], depth: number): void => {
    if (found.size >= MAX_PATHS || depth > MAX_DEPTH) return;
    if (isSecretValue(item)) {
      found.set(JSON.stringify(path), path);
      return;
    }
    if (Array.isArray(item)) {
      for (const element of item) walk(element, [...path, EVERY], depth + 1);
      return;
    }
    if (!isRecord(item)) return;
    for (const name of Object.keys(item)) {
      const member = item[name];
      if (isSecretKey(name) && member !== null && member !== undefined && typeof member !== 'boolean')
        found.set(JSON.stringify([...path, name]), [...path, name]);
      else walk(member, [...path, name], depth + 1);
    }
  };
  walk(value, [], 0);
  return [...found.values()];
}

/** The paths of `lists`, each once, in order, at most {@link MAX_PATHS}. */
export function unitedSecretPaths(...lists: readonly (readonly string[])[][]): string[][] {
  const found = new Map<string, string[]>();
  for (const list of lists) for (const path of list) if (found.size < MAX_PATHS) found.set(JSON.stringify(path), [...path]);
  return [...found.values()];
}

/**
 * Whether the dotted `member` (`formData.vault.pins`) is, or lies inside, a declared secret of
 * `paths` found under `under` (`formData`; {@link EVERY} matches any name); with `containing`, also
 * whether it holds one further down. What `auditChanges` lists without values.
 */
export function isDeclaredSecretMember(member: string, under: string, paths: readonly (readonly string[])[], containing: boolean): boolean {
  if (member !== under && !member.startsWith(`${under}.`)) return false;
  const parts = member === under ? [] : member.slice(under.length + 1).split('.');
  return paths.some((path) => {
    if (path.length > parts.length && !containing) return false;
    const shared = Math.min(parts.length, path.length);
    for (let k = 0; k < shared; k++) if (path[k] !== EVERY && path[k] !== parts[k]) return false;
    return true;
  });
}

/**
 * Calls `each` with every value found at `path` in `value` ({@link EVERY} walks every item or
 * member), and the member it is, named from `member` as {@link assertSecretTextWithin} names it
 * (`options.variables.vault.pins[0]`).
 */
function eachAt(value: unknown, path: readonly string[], at: number, member: string, each: (found: unknown, member: string) => void): void {
  if (at === path.length) {
    each(value, member);
    return;
  }
  const segment = path[at] as string;
  if (Array.isArray(value)) {
    if (segment === EVERY) value.forEach((item: unknown, i) => eachAt(item, path, at + 1, `${member}[${i}]`, each));
  } else if (isRecord(value)) {
    for (const name of segment === EVERY ? Object.keys(value) : Object.hasOwn(value, segment) ? [segment] : [])
      eachAt(value[name], path, at + 1, `${member}.${name}`, each);
  }
}

/**
 * `value` with what `replace` makes of each member at `path` (given what `stored` holds at the same
 * place, and the member's name), copied only along the members it changed.
 */
function rewriteAt(
  value: unknown,
  stored: unknown,
  path: readonly string[],
  at: number,
  member: string,
  replace: (found: unknown, stored: unknown, member: string) => unknown,
): unknown {
  if (at === path.length) return replace(value, stored, member);
  const segment = path[at] as string;
  if (Array.isArray(value)) {
    if (segment !== EVERY) return value;
    let copy: unknown[] | undefined;
    value.forEach((item: unknown, i) => {
      const next = rewriteAt(item, Array.isArray(stored) ? stored[i] : undefined, path, at + 1, `${member}[${i}]`, replace);
      if (next !== item) (copy ??= [...value])[i] = next;
    });
    return copy ?? value;
  }
  if (!isRecord(value)) return value;
  let copy: Json | undefined;
  for (const name of segment === EVERY ? Object.keys(value) : Object.hasOwn(value, segment) ? [segment] : []) {
    const item = value[name];
    const next = rewriteAt(
      item,
      isRecord(stored) && Object.hasOwn(stored, name) ? stored[name] : undefined,
      path,
      at + 1,
      `${member}.${name}`,
      replace,
    );
    if (next !== item) {
      copy ??= { ...value };
      // `__proto__` from JSON is an own member: kept one (an assignment would set the prototype)
      Object.defineProperty(copy, name, { value: next, enumerable: true, writable: true, configurable: true });
    }
  }
  return copy ?? value;
}

/**
 * The members of `value` at the declared `paths`, named as {@link assertSecretTextWithin} names
 * them under `what` (`options.variables.vault.pins[0]`): what it counts as secret besides names.
 */
export function declaredSecretMembers(value: unknown, paths: readonly (readonly string[])[], what: string): Set<string> {
  const members = new Set<string>();
  for (const path of paths) eachAt(value, path, 0, what, (_found, member) => members.add(member));
  return members;
}

/** Adds every text and number in `value` (at any depth) to `found`: a declared secret is secret whole. */
function addTexts(value: unknown, depth: number, found: FoundSecrets): void {
  if (typeof value === 'string' || typeof value === 'number') addSecretTexts(found, String(value));
  else if (depth < MAX_DEPTH && Array.isArray(value)) for (const item of value) addTexts(item, depth + 1, found);
  else if (depth < MAX_DEPTH && isRecord(value)) for (const name of Object.keys(value)) addTexts(value[name], depth + 1, found);
}

/** Adds the values `value` holds at the declared `paths` to `found` (texts from `MIN_SECRET_CHARS` characters on): `found` itself. */
export function findDeclaredSecrets(
  value: unknown,
  paths: readonly (readonly string[])[],
  found: FoundSecrets = noSecrets(),
): FoundSecrets {
  for (const path of paths) eachAt(value, path, 0, '', (secret) => addTexts(secret, 0, found));
  return found;
}

/** `value` with the members at `paths` replaced by the mask, copied only along the paths that hold a value. */
export function maskDeclaredPaths<T>(value: T, paths: readonly (readonly string[])[]): T {
  const mask = (found: unknown): unknown => (found === null || found === undefined || typeof found === 'boolean' ? found : SECRET_MASK);
  let out: unknown = value;
  for (const path of paths) out = rewriteAt(out, undefined, path, 0, '', mask);
  return out as T;
}

/**
 * `given` (values a client wrote back after reading them masked) with each `********` at a declared
 * `path` replaced by what `stored` holds there: the client keeps the secret it could not see. A mask
 * at a declared path where nothing is stored is refused (`VALIDATION_FAILED` naming the member under
 * `member`): it would become the secret. Copied only along the paths restored.
 */
export function restoreDeclaredPaths<T>(
  given: T,
  stored: unknown,
  paths: readonly (readonly string[])[],
  member: string,
  owner: string,
): T {
  const restore = (found: unknown, kept: unknown, at: string): unknown => {
    if (found !== SECRET_MASK) return found;
    if (kept !== undefined && kept !== null) return kept;
    throw new AppError(
      'VALIDATION_FAILED',
      `${at} is ${SECRET_MASK}, but ${owner} has no secret stored there to keep: give the secret itself`,
      {
        details: [{ member: at, message: 'give the secret itself' }],
      },
    );
  };
  let out: unknown = given;
  for (const path of paths) out = rewriteAt(out, stored, path, 0, member, restore);
  return out as T;
}

/**
 * `shown` (what is about to be answered, streamed or archived of a thing whose values are `values`)
 * with the secrets `values` holds at the declared `paths` masked: the members at those paths of
 * `shown[member]` replaced whole, and every form of their texts (as written, JSON-escaped,
 * URL-encoded, base64, …) wherever else a string of `shown` repeats one (a task's resolved
 * incoming, an output that copied it, an error). `shown` itself when no path holds a value.
 */
export function maskDeclaredSecrets<T extends Json>(
  shown: T,
  member: keyof T & string,
  values: unknown,
  paths: readonly (readonly string[])[],
): T {
  if (paths.length === 0) return shown;
  const found = findDeclaredSecrets(values, paths);
  const withPaths = Object.hasOwn(shown, member) ? { ...shown, [member]: maskDeclaredPaths(shown[member], paths) } : shown;
  if (found.texts.size === 0) return withPaths;
  return secretMask(found).value(withPaths);
}
