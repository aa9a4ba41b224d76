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

/** Calls `each` with every value found at `path` in `value` ({@link EVERY} walks every item or member). */
function atPath(value: unknown, path: readonly string[], at: number, each: (found: unknown) => void): void {
  if (at === path.length) {
    each(value);
    return;
  }
  const segment = path[at] as string;
  if (segment === EVERY) {
    if (Array.isArray(value)) for (const item of value) atPath(item, path, at + 1, each);
    else if (isRecord(value)) for (const name of Object.keys(value)) atPath(value[name], path, at + 1, each);
    return;
  }
  if (isRecord(value) && Object.hasOwn(value, segment)) atPath(value[segment], path, at + 1, each);
}

/**
 * The members of `value` at the declared `paths`, named as {@link assertSecretTextWithin} names
 * them under `what` (`options.variables.vault.pins[0]`): what it counts as secret besides names.
 */
export function declaredSecretMembers(value: unknown, paths: readonly (readonly string[])[], what: string): Set<string> {
  const members = new Set<string>();
  const visit = (item: unknown, path: readonly string[], at: number, member: string): void => {
    if (at === path.length) {
      members.add(member);
      return;
    }
    const segment = path[at] as string;
    if (Array.isArray(item)) {
      if (segment === EVERY) item.forEach((element: unknown, i) => visit(element, path, at + 1, `${member}[${i}]`));
    } else if (isRecord(item)) {
      if (segment === EVERY) for (const name of Object.keys(item)) visit(item[name], path, at + 1, `${member}.${name}`);
      else if (Object.hasOwn(item, segment)) visit(item[segment], path, at + 1, `${member}.${segment}`);
    }
  };
  for (const path of paths) visit(value, path, 0, what);
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
  for (const path of paths) atPath(value, path, 0, (secret) => addTexts(secret, 0, found));
  return found;
}

/** `value` with the members at `paths` replaced by the mask, copied only along the paths that hold a value. */
export function maskDeclaredPaths<T>(value: T, paths: readonly (readonly string[])[]): T {
  let out: unknown = value;
  for (const path of paths) out = maskAt(out, path, 0);
  return out as T;
}

function maskAt(value: unknown, path: readonly string[], at: number): unknown {
  if (at === path.length) return value === null || value === undefined || typeof value === 'boolean' ? value : SECRET_MASK;
  const segment = path[at] as string;
  if (Array.isArray(value)) {
    if (segment !== EVERY) return value;
    let copy: unknown[] | undefined;
    value.forEach((item: unknown, i) => {
      const masked = maskAt(item, path, at + 1);
      if (masked !== item) (copy ??= [...value])[i] = masked;
    });
    return copy ?? value;
  }
  if (!isRecord(value)) return value;
  let copy: Json | undefined;
  for (const name of segment === EVERY ? Object.keys(value) : Object.hasOwn(value, segment) ? [segment] : []) {
    const member = value[name];
    const masked = maskAt(member, path, at + 1);
    if (masked !== member) {
      copy ??= { ...value };
      Object.defineProperty(copy, name, { value: masked, enumerable: true, writable: true, configurable: true });
    }
  }
  return copy ?? value;
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
  let out: unknown = given;
  for (const path of paths) out = restoreAt(out, stored, path, 0, member, owner);
  return out as T;
}

function restoreAt(value: unknown, stored: unknown, path: readonly string[], at: number, member: string, owner: string): unknown {
  if (at === path.length) {
    if (value !== SECRET_MASK) return value;
    if (stored !== undefined && stored !== null) return stored;
    throw new AppError(
      'VALIDATION_FAILED',
      `${member} is ${SECRET_MASK}, but ${owner} has no secret stored there to keep: give the secret itself`,
      {
        details: [{ member, message: 'give the secret itself' }],
      },
    );
  }
  const segment = path[at] as string;
  if (Array.isArray(value)) {
    if (segment !== EVERY) return value;
    let copy: unknown[] | undefined;
    value.forEach((item: unknown, i) => {
      const restored = restoreAt(item, Array.isArray(stored) ? stored[i] : undefined, path, at + 1, `${member}[${i}]`, owner);
      if (restored !== item) (copy ??= [...value])[i] = restored;
    });
    return copy ?? value;
  }
  if (!isRecord(value)) return value;
  let copy: Record<string, unknown> | undefined;
  for (const name of segment === EVERY ? Object.keys(value) : Object.hasOwn(value, segment) ? [segment] : []) {
    const item = value[name];
    const restored = restoreAt(
      item,
      isRecord(stored) && Object.hasOwn(stored, name) ? stored[name] : undefined,
      path,
      at + 1,
      `${member}.${name}`,
      owner,
    );
    if (restored !== item) {
      copy ??= { ...value };
      Object.defineProperty(copy, name, { value: restored, enumerable: true, writable: true, configurable: true });
    }
  }
  return copy ?? value;
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
